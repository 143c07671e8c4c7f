# Tenant isolation and owner scoping: the object layer of authorization.
#
# The PDP cannot filter rows itself (OPA's Wasm target has no partial
# evaluation), so every allowed decision carries the row filter the API must
# query through: WHERE tenant_id = scope.tenant_id [AND owner_id = scope.owner_id].
# When the API already knows the row (resource.tenant / resource.owner) we
# check it here too, and answer 404 rather than 403: a caller must not learn
# that a row exists outside its reach (same answer as the scoped query).
package portcullis

# The actor's tenant, when it has one (anonymous callers have none).
actor_tenant := t if {
	t := input.actor.tenant
	is_string(t)
	t != ""
}

# Routes that reach tenant rows need a tenant; only public and instance-wide
# routes (health, openapi, metrics) do without.
tenant_missing if {
	route_policy.tenant_data == true
	not actor_tenant
}

# A row of another tenant is "not found". A resource tenant sent without an
# actor tenant is foreign too.
foreign_tenant if {
	rt := input.resource.tenant
	rt != actor_tenant
}

foreign_tenant if {
	input.resource.tenant
	not actor_tenant
}

# An owner-scoped role may reach its own rows only.
foreign_owner if {
	grant.owner_scoped == true
	owner := input.resource.owner
	owner != input.actor.id
}

# The row filter of an allowed decision.
scope := object.union(tenant_scope, owner_scope)

tenant_scope := {"tenant_id": actor_tenant} if actor_tenant else := {}

owner_scope := {"owner_id": input.actor.id} if grant.owner_scoped == true else := {}
