# Route policies: which route the request is on, and which grant of the
# route table (data.portcullis.routes, routes/data.json) applies to the actor.
#
# The table is keyed by version-free route id: every API version of a route
# shares one policy, so a fix lands in every version at once. Each route lists
# its methods, its single action, its resource type, whether it reaches tenant
# rows, and one grant per role. A grant names the field views the role reads
# and writes (fields/data.json) and whether the role is owner-scoped.
package portcullis

# The policy of the route the API resolved; undefined for an unknown route id
# (-> 403 no_policy: no policy means deny).
route_policy := data.portcullis.routes[input.route.id]

# The methods are listed per route; anything else is denied like a missing
# policy (403 method_not_allowed), never 405: the API's router answers
# unknown methods before it asks us.
method_listed if upper(input.route.method) in route_policy.methods

# The action comes from the API's route record; a mismatch with the table
# means the two disagree about what the route does, so deny.
action_matches if input.action == route_policy.action

# The resource type is checked only when the API sends it.
resource_mismatch if {
	t := input.resource.type
	t != route_policy.resource
}

# Authentication: the API sends id "anonymous" for requests without a valid
# token. Anything that is not a non-empty, non-"anonymous" string id counts
# as anonymous too, so a malformed actor can never be mistaken for a user.
authenticated if {
	is_string(input.actor.id)
	not input.actor.id in {"", "anonymous"}
}

anonymous if not authenticated

# A route is public when its table entry grants the pseudo-role "anyone".
public_route if route_policy.grants.anyone

# The roles that count: an anonymous caller has none, whatever its input says
# (roles are only trusted from a verified token). Everyone has "anyone".
caller_roles contains role if {
	authenticated
	some role in input.actor.roles
	is_string(role)
}

caller_roles contains "anyone"

# When an actor holds several roles, ONE grant applies: the first of this
# list the route grants. Grants are never merged, so holding member+support
# never yields member fields on every tenant row.
role_precedence := ["admin", "support", "member", "anyone"]

grant_role := role_precedence[i] if {
	i := min({j |
		some j, role in role_precedence
		role in caller_roles
		route_policy.grants[role]
	})
}

grant := route_policy.grants[grant_role]
