# Workflow actions on invoices: approve, refund, publish, each its own rule.
package portcullis_test

import data.portcullis

bobs_invoice := {"type": "invoice", "id": "inv_2", "tenant": "t_acme", "owner": "u_bob"}

alices_invoice := {"type": "invoice", "id": "inv_1", "tenant": "t_acme", "owner": "u_alice"}

sams_invoice := {"type": "invoice", "id": "inv_3", "tenant": "t_acme", "owner": "u_sam"}

test_approve_is_admin_only if {
	decide_with("admin", "invoices.approve", "POST", "approve", {"resource": bobs_invoice}).allow
	every who in ["member", "other_member", "support", "none"] {
		d := decide_with(who, "invoices.approve", "POST", "approve", {"resource": bobs_invoice})
		d.status == 403
		d.reason == "role_required"
	}
}

carols_invoice := {"type": "invoice", "id": "inv_4", "tenant": "t_acme", "owner": "u_carol"}

test_nobody_approves_or_refunds_their_own_invoice if {
	approve := decide_with("admin", "invoices.approve", "POST", "approve", {"resource": carols_invoice})
	approve.status == 403
	approve.reason == "separation_of_duties"
	refund := decide_with("admin", "invoices.refund", "POST", "refund", {"resource": carols_invoice, "fields": {"submitted": ["reason"]}})
	refund.status == 403
	refund.reason == "separation_of_duties"
	# Publishing is not an approval: an admin publishes its own invoice.
	decide_with("admin", "invoices.publish", "POST", "publish", {"resource": carols_invoice}).allow
}

test_approve_or_refund_of_an_unlocated_invoice_is_not_found_for_admins_too if {
	every route_id in ["invoices.approve", "invoices.refund"] {
		d := decide_with("admin", route_id, "POST", data.portcullis.routes[route_id].action, {"resource": {"type": "invoice", "id": "inv_9"}})
		d.status == 404
		d.reason == "not_found"
	}
}

test_member_cannot_approve_own_invoice if {
	decide_with("member", "invoices.approve", "POST", "approve", {"resource": alices_invoice}).reason == "role_required"
}

test_refund_by_admin if {
	d := decide_with("admin", "invoices.refund", "POST", "refund", {"resource": bobs_invoice, "fields": {"submitted": ["amount_cents"]}})
	d.allow
	d.scope == {"tenant_id": "t_acme"}
	d.fields.write == ["amount_cents", "reason"]
}

test_refund_by_support_with_reason_on_another_users_invoice if {
	d := decide_with("support", "invoices.refund", "POST", "refund", {"resource": bobs_invoice, "fields": {"submitted": ["reason", "amount_cents"]}})
	d.allow
	d.scope == {"tenant_id": "t_acme"}
}

test_refund_by_support_needs_a_reason if {
	d := decide_with("support", "invoices.refund", "POST", "refund", {"resource": bobs_invoice, "fields": {"submitted": ["amount_cents"]}})
	d.status == 403
	d.reason == "refund_reason_required"
}

# Fail closed: a request that carries no fields.submitted states no reason either.
test_refund_by_support_without_submitted_fields_needs_a_reason if {
	req := object.remove(request("support", "invoices.refund", "POST", "refund"), ["fields"])
	d := portcullis.decision with input as object.union(req, {"resource": bobs_invoice})
	d.status == 403
	d.reason == "refund_reason_required"
}

test_refund_by_support_of_an_unlocated_invoice_is_not_found if {
	d := decide_with("support", "invoices.refund", "POST", "refund", {"resource": {"type": "invoice", "id": "inv_2"}, "fields": {"submitted": ["reason"]}})
	d.status == 404
	d.reason == "not_found"
}

test_refund_by_support_of_own_invoice_is_denied if {
	d := decide_with("support", "invoices.refund", "POST", "refund", {"resource": sams_invoice, "fields": {"submitted": ["reason"]}})
	d.status == 403
	d.reason == "separation_of_duties"
}

test_refund_by_support_of_foreign_tenant_is_404 if {
	d := decide_with("support", "invoices.refund", "POST", "refund", {"resource": object.union(bobs_invoice, {"tenant": "t_globex"}), "fields": {"submitted": ["reason"]}})
	d.status == 404
}

test_refund_by_member_is_denied_even_for_own_invoice if {
	d := decide_with("member", "invoices.refund", "POST", "refund", {"resource": alices_invoice, "fields": {"submitted": ["reason"]}})
	d.reason == "role_required"
}

test_publish_by_owning_member if {
	d := decide_with("member", "invoices.publish", "POST", "publish", {"resource": alices_invoice})
	d.allow
	d.scope == {"tenant_id": "t_acme", "owner_id": "u_alice"}
}

test_publish_by_another_member_is_404 if {
	d := decide_with("member", "invoices.publish", "POST", "publish", {"resource": bobs_invoice})
	d.status == 404
	d.reason == "not_found"
}

test_publish_by_admin_is_tenant_wide if {
	d := decide_with("admin", "invoices.publish", "POST", "publish", {"resource": bobs_invoice})
	d.allow
	d.scope == {"tenant_id": "t_acme"}
}

test_publish_by_support_is_denied if {
	decide_with("support", "invoices.publish", "POST", "publish", {"resource": bobs_invoice}).reason == "role_required"
}

test_workflow_actions_take_no_body_except_refund if {
	every route_id in ["invoices.approve", "invoices.publish"] {
		r := data.portcullis.routes[route_id]
		decide_with("admin", route_id, "POST", r.action, object.union(located_row(route_id), {"fields": {"submitted": ["status"]}})).reason == "field_not_writable"
	}
}
