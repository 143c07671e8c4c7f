# Tenant isolation and owner scoping.
package portcullis_test

import data.portcullis

foreign_invoice := {"resource": {"type": "invoice", "id": "inv_9", "tenant": "t_globex", "owner": "u_zed"}}

test_scope_is_always_the_actors_tenant if {
	every who in ["member", "support", "admin"] {
		every route_id in ["invoices.get", "invoices.list", "search.get", "users.me.get"] {
			r := data.portcullis.routes[route_id]
			decide(who, route_id, r.methods[0], r.action).scope.tenant_id == "t_acme"
		}
	}
	decide("foreign_admin", "invoices.list", "GET", "list").scope == {"tenant_id": "t_globex"}
}

test_member_invoices_are_owner_scoped if {
	every route_id in ["invoices.get", "invoices.list", "invoices.export", "invoices.batch"] {
		r := data.portcullis.routes[route_id]
		decide("member", route_id, r.methods[0], r.action).scope == {"tenant_id": "t_acme", "owner_id": "u_alice"}
	}
}

test_admin_and_support_invoices_are_tenant_wide if {
	every who in ["support", "admin"] {
		every route_id in ["invoices.get", "invoices.list", "invoices.export", "invoices.batch"] {
			r := data.portcullis.routes[route_id]
			decide(who, route_id, r.methods[0], r.action).scope == {"tenant_id": "t_acme"}
		}
	}
}

test_foreign_tenant_row_is_404_on_every_tenant_route if {
	tenant_routes := {id: r | some id, r in data.portcullis.routes; r.tenant_data}
	count(tenant_routes) == 17
	every route_id, r in tenant_routes {
		every who in ["member", "support", "admin"] {
			d := decide_with(who, route_id, r.methods[0], r.action, {"resource": {"tenant": "t_globex"}})
			d.allow == false
			d.status == foreign_status(decide(who, route_id, r.methods[0], r.action))
		}
	}
}

# 404 wherever the role may call the route; 403 role_required otherwise
# (that answer never depends on the row).
foreign_status(plain) := 403 if plain.reason == "role_required" else := 404

test_foreign_tenant_404_looks_like_a_missing_row if {
	d := decide_with("admin", "invoices.get", "GET", "read", foreign_invoice)
	d == {"allow": false, "status": 404, "reason": "not_found", "scope": {}, "fields": {"read": [], "write": []}}
}

test_admin_cannot_moderate_another_tenants_user if {
	d := decide_with("foreign_admin", "admin.users.suspend", "POST", "suspend", {"resource": {"type": "user", "id": "u_alice", "tenant": "t_acme"}})
	d.status == 404
}

test_own_tenant_row_is_allowed if {
	d := decide_with("admin", "invoices.get", "GET", "read", {"resource": {"id": "inv_1", "tenant": "t_acme", "owner": "u_bob"}})
	d.allow
}

test_member_reaching_another_members_invoice_is_404 if {
	d := decide_with("member", "invoices.get", "GET", "read", {"resource": {"id": "inv_2", "tenant": "t_acme", "owner": "u_bob"}})
	d.status == 404
	d.reason == "not_found"
}

test_member_reaching_own_invoice_is_allowed if {
	d := decide_with("member", "invoices.get", "GET", "read", {"resource": {"id": "inv_1", "tenant": "t_acme", "owner": "u_alice"}})
	d.allow
	d.scope.owner_id == "u_alice"
}

test_users_me_is_always_the_actors_own_row if {
	every who in ["member", "support", "admin"] {
		every route_id in ["users.me.get", "users.me.update"] {
			r := data.portcullis.routes[route_id]
			d := decide(who, route_id, r.methods[0], r.action)
			d.scope == {"tenant_id": "t_acme", "owner_id": actors[who].id}
		}
	}
}

test_users_me_for_another_user_is_404 if {
	d := decide_with("admin", "users.me.update", "PATCH", "update", {"resource": {"type": "user", "id": "u_bob", "owner": "u_bob"}})
	d.status == 404
}

test_actor_without_tenant_is_denied_tenant_data if {
	homeless := {"id": "u_ghost", "tenant": null, "roles": ["admin"]}
	d := portcullis.decision with input as request_as(homeless, "invoices.list", "GET", "list")
	d.status == 403
	d.reason == "tenant_required"

	# never a scope without a tenant: no filter would mean every tenant's rows
	e := portcullis.decision with input as request_as(homeless, "metrics.get", "GET", "read")
	e.allow
	e.scope == {}
}

test_resource_tenant_without_actor_tenant_is_foreign if {
	d := portcullis.decision with input as object.union(request("anonymous", "health.get", "GET", "read"), {"resource": {"tenant": "t_acme"}})
	d.status == 404
}

test_anonymous_public_routes_have_an_empty_scope if {
	decide("anonymous", "health.get", "GET", "read").scope == {}
	decide("anonymous", "openapi.get", "GET", "read").scope == {}
}
