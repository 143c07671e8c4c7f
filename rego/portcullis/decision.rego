# The decision for one request: data.portcullis.decision.
#
# Always defined (deny by default) and never conflicting: the checks below
# run in a fixed order (one else chain, `outcome`) and the first that fails
# is the answer. A request is allowed only when every check passes.
#
#   order  check                                      status  reason
#   1      route id in the route table                403     no_policy
#   2      method listed for the route                403     method_not_allowed
#   3      action is the route's action               403     action_not_allowed
#   4      resource type is the route's (if sent)     403     resource_mismatch
#   5      authenticated, unless the route is public  401     authentication_required
#   6      one of the actor's roles is granted        403     role_required
#   7      actor has a tenant (tenant-data routes)    403     tenant_required
#   8      resource tenant is the actor's (if sent)   404     not_found
#   9      resource owner is the actor (owner-scoped
#          grants, if sent)                           404     not_found
#   9b     a row the rule needs could not be located  404     not_found
#          for the actor (workflow.rego)
#   10     workflow conditions (workflow.rego)        403     its own reason
#   11     every submitted field is writable          403     field_not_writable
#          (fields.rego: one rule for every route)
#
# Route-level checks come first, then the actor, then the row, then the body.
# The role check (6) never looks at the resource, so a 403 tells a caller
# nothing about a row; rows outside the caller's reach are always 404.
# Query parameters (input.params) are deliberately not read: the API's
# parameter guard rejects unknown ones, and no parameter can change a decision.
package portcullis

default decision := {
	"allow": false,
	"status": 403,
	"reason": "no_policy",
	"scope": {},
	"fields": {"read": [], "write": []},
}

# `outcome` is always defined (its last branch is "allowed") and evaluated
# once per decision (rule values are memoised within an evaluation).
decision := {
	"allow": false,
	"status": outcome.status,
	"reason": outcome.reason,
	"scope": {},
	"fields": {"read": [], "write": []},
} if {
	outcome.status != 200
}

decision := {
	"allow": true,
	"status": 200,
	"reason": "allowed",
	"scope": scope,
	"fields": {"read": read_fields, "write": write_fields},
} if {
	outcome.status == 200
	grant
}

outcome := {"status": 403, "reason": "no_policy"} if {
	not route_policy
} else := {"status": 403, "reason": "method_not_allowed"} if {
	not method_listed
} else := {"status": 403, "reason": "action_not_allowed"} if {
	not action_matches
} else := {"status": 403, "reason": "resource_mismatch"} if {
	resource_mismatch
} else := {"status": 401, "reason": "authentication_required"} if {
	anonymous
	not public_route
} else := {"status": 403, "reason": "role_required"} if {
	not grant
} else := {"status": 403, "reason": "tenant_required"} if {
	tenant_missing
} else := {"status": 404, "reason": "not_found"} if {
	foreign_tenant
} else := {"status": 404, "reason": "not_found"} if {
	foreign_owner
} else := {"status": 404, "reason": "not_found"} if {
	workflow_row_not_located
} else := {"status": 403, "reason": workflow_denial} if {
	workflow_denial
} else := {"status": 403, "reason": "field_not_writable"} if {
	field_not_writable
} else := {"status": 200, "reason": "allowed"}
