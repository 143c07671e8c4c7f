# The route table and field views are reviewed like code; these tests keep
# them well-formed, so a data edit cannot quietly weaken the policy.
package portcullis_test

import data.portcullis

known_actions := {"read", "list", "export", "search", "create", "update", "delete", "approve", "refund", "publish", "invite", "suspend", "disable", "ban"}

grants := [[route_id, role, g] |
	some route_id, r in data.portcullis.routes
	some role, g in r.grants
]

test_every_route_is_well_formed if {
	every route_id, r in data.portcullis.routes {
		count(r.methods) > 0
		every m in r.methods {
			m in {"GET", "POST", "PUT", "PATCH", "DELETE"}
		}
		r.action in known_actions
		is_string(r.resource)
		is_boolean(r.tenant_data)
		is_string(r.doc)
		count(r.grants) > 0
	}
}

test_every_grant_names_a_known_role_and_existing_views if {
	every x in grants {
		x[1] in {"anyone", "member", "support", "admin"}
		object.keys(x[2]) - {"read", "write", "owner_scoped"} == set()
		data.portcullis.fields.views[x[2].read]
		object.get(data.portcullis.fields.views, object.get(x[2], "write", "health"), null) != null
	}
}

test_roles_of_the_table_are_in_the_precedence_list if {
	every x in grants {
		x[1] in portcullis.role_precedence
	}
}

test_public_grants_are_read_only_and_never_reach_tenant_data if {
	public := {id: r | some id, r in data.portcullis.routes; r.grants.anyone}
	object.keys(public) == {"health.get", "openapi.get"}
	every route_id, r in public {
		not r.grants.anyone.owner_scoped
		not r.grants.anyone.write
		r.tenant_data == false
	}
}

test_write_views_hold_no_protected_or_retired_field if {
	write_views := {g.write | some x in grants; g := x[2]; g.write}
	every name in write_views {
		every f in data.portcullis.fields.views[name] {
			not data.portcullis.fields.protected[f]
			not data.portcullis.fields.retired[f]
		}
	}
}

test_no_view_lists_a_retired_field if {
	every name, fields in data.portcullis.fields.views {
		every f in fields {
			not data.portcullis.fields.retired[f]
		}
	}
}

test_protected_and_retired_lists_are_complete if {
	object.keys(data.portcullis.fields.protected) == {"isAdmin", "owner_id", "tenant_id", "account_credit_cents", "support_priority", "role", "debug"}
	object.keys(data.portcullis.fields.retired) == {"role", "billingPlan", "internalNotes"}
}

test_admin_routes_grant_admins_only if {
	every route_id in ["invoices.approve", "users.invite", "admin.users.suspend", "admin.users.disable", "admin.users.ban", "admin.export", "admin.export.get", "internal.reports.export"] {
		object.keys(data.portcullis.routes[route_id].grants) == {"admin"}
	}
}

test_workflow_grants if {
	object.keys(data.portcullis.routes["invoices.approve"].grants) == {"admin"}
	object.keys(data.portcullis.routes["invoices.refund"].grants) == {"admin", "support"}
	object.keys(data.portcullis.routes["invoices.publish"].grants) == {"admin", "member"}
	data.portcullis.routes["invoices.publish"].grants.member.owner_scoped == true
}

test_members_are_owner_scoped_on_invoices if {
	every route_id, r in data.portcullis.routes {
		every role, g in r.grants {
			owner_scope_expected(r, role) == object.get(g, "owner_scoped", false)
		}
	}
}

# Members reach their own invoices only; everyone reaches only their own
# profile row; search is tenant-wide by design (it returns summaries only).
owner_scope_expected(r, role) := true if {
	r.resource == "invoice"
	role == "member"
} else := true if {
	r.action in {"read", "update"}
	r.resource == "user"
} else := false
