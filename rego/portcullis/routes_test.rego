# The route x role matrix: every route id of the table, every role.
# Rows carry the method and action explicitly, so a change to the table's
# methods or actions fails here too. Statuses without a known row or body;
# tenancy, fields and workflow conditions have their own tests.
package portcullis_test

import data.portcullis

test_health_get if matrix_holds("health.get", "GET", "read", {"anonymous": 200, "none": 200, "member": 200, "support": 200, "admin": 200})

test_metrics_get if matrix_holds("metrics.get", "GET", "read", {"anonymous": 401, "none": 403, "member": 403, "support": 200, "admin": 200})

test_openapi_get if matrix_holds("openapi.get", "GET", "read", {"anonymous": 200, "none": 200, "member": 200, "support": 200, "admin": 200})

test_invoices_get if matrix_holds("invoices.get", "GET", "read", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_invoices_list if matrix_holds("invoices.list", "GET", "list", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_invoices_export if matrix_holds("invoices.export", "GET", "export", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_invoices_batch if matrix_holds("invoices.batch", "POST", "read", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

# approve and refund without a located invoice owner: not found for whoever
# is granted the action (separation of duties needs the owner; workflow_test.rego)
test_invoices_approve if matrix_holds("invoices.approve", "POST", "approve", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 404})

test_invoices_refund if matrix_holds("invoices.refund", "POST", "refund", {"anonymous": 401, "none": 403, "member": 403, "support": 404, "admin": 404})

test_invoices_approve_and_refund_of_a_located_invoice if {
	decide_with("admin", "invoices.approve", "POST", "approve", located_row("invoices.approve")).status == 200
	decide_with("admin", "invoices.refund", "POST", "refund", located_row("invoices.refund")).status == 200
}

test_invoices_publish if matrix_holds("invoices.publish", "POST", "publish", {"anonymous": 401, "none": 403, "member": 200, "support": 403, "admin": 200})

test_users_invite if matrix_holds("users.invite", "POST", "invite", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_admin_users_suspend if matrix_holds("admin.users.suspend", "POST", "suspend", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_admin_users_disable if matrix_holds("admin.users.disable", "POST", "disable", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_admin_users_ban if matrix_holds("admin.users.ban", "POST", "ban", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_admin_export if matrix_holds("admin.export", "POST", "export", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_admin_export_get if matrix_holds("admin.export.get", "GET", "read", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

# Polling a job: the admin's tenant only, the job's fields (result included), nothing writable.
test_admin_export_get_reads_the_job_in_the_admins_tenant if {
	d := decide("admin", "admin.export.get", "GET", "read")
	d.allow
	d.scope == {"tenant_id": "t_acme"}
	d.fields == {"read": ["id", "status", "format", "createdAt", "startedAt", "finishedAt", "rowCount", "error", "result"], "write": []}
}

test_admin_export_get_of_another_tenants_job_is_not_found if {
	d := decide_with("foreign_admin", "admin.export.get", "GET", "read", {"resource": {"id": "exp_1", "tenant": "t_acme"}})
	d == {"allow": false, "status": 404, "reason": "not_found", "scope": {}, "fields": {"read": [], "write": []}}
}

test_admin_export_get_refuses_a_body if {
	d := decide_with("admin", "admin.export.get", "GET", "read", {"fields": {"submitted": ["format"]}})
	d.status == 403
	d.reason == "field_not_writable"
}

test_users_me_get if matrix_holds("users.me.get", "GET", "read", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_users_me_update if matrix_holds("users.me.update", "PATCH", "update", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_search_get if matrix_holds("search.get", "GET", "search", {"anonymous": 401, "none": 403, "member": 200, "support": 200, "admin": 200})

test_internal_reports_export_get if matrix_holds("internal.reports.export", "GET", "export", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_internal_reports_export_post if matrix_holds("internal.reports.export", "POST", "export", {"anonymous": 401, "none": 403, "member": 403, "support": 403, "admin": 200})

test_role_denials_say_role_required if {
	every route_id in ["metrics.get", "invoices.approve", "users.invite", "admin.users.suspend", "admin.users.disable", "admin.users.ban", "admin.export", "admin.export.get", "internal.reports.export"] {
		r := data.portcullis.routes[route_id]
		decide("member", route_id, r.methods[0], r.action).reason == "role_required"
	}
}

test_every_route_in_the_table_is_tested if {
	tested := {
		"health.get", "metrics.get", "openapi.get",
		"invoices.get", "invoices.list", "invoices.export", "invoices.batch",
		"invoices.approve", "invoices.refund", "invoices.publish",
		"users.invite", "admin.users.suspend", "admin.users.disable", "admin.users.ban", "admin.export", "admin.export.get",
		"users.me.get", "users.me.update", "search.get", "internal.reports.export",
	}
	object.keys(data.portcullis.routes) == tested
}

test_unlisted_methods_of_known_routes_are_denied if {
	every route_id, r in data.portcullis.routes {
		every method in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"} - {m | some m in r.methods} {
			decide("admin", route_id, method, r.action).reason == "method_not_allowed"
		}
	}
}

test_several_roles_use_the_first_granted_in_precedence if {
	multi := {"id": "u_max", "tenant": "t_acme", "roles": ["member", "support"]}
	d := portcullis.decision with input as request_as(multi, "invoices.get", "GET", "read")

	# support's grant, not member's: tenant-wide rows with support's view
	d.scope == {"tenant_id": "t_acme"}
	d.fields.read == data.portcullis.fields.views["invoice.support"]
}

test_multi_role_falls_back_to_the_role_the_route_grants if {
	multi := {"id": "u_max", "tenant": "t_acme", "roles": ["support", "member"]}
	d := portcullis.decision with input as request_as(multi, "invoices.publish", "POST", "publish")
	d.allow
	d.scope == {"tenant_id": "t_acme", "owner_id": "u_max"}
}

test_unknown_roles_grant_nothing if {
	eve := {"id": "u_eve", "tenant": "t_acme", "roles": ["superuser", "root", "Admin"]}
	d := portcullis.decision with input as request_as(eve, "admin.export", "POST", "export")
	d.status == 403
	d.reason == "role_required"
}
