# Workflow actions on invoices: each action is its own route with its own
# grants (routes/data.json), never a generic "update invoice" permission,
# and each may add conditions here that the table cannot express.
#
#   invoices.approve  admins only (the table grants admin alone), and
#                     separation of duties (below).
#   invoices.publish  admins (tenant-wide), or the member who owns the
#                     invoice: the member grant is owner-scoped, so the API
#                     queries WHERE owner_id = actor, and a known foreign
#                     owner is 404 (tenancy.rego).
#   invoices.refund   admins; support only when the refund states a reason
#                     (the body carries "reason"), so every staff refund is
#                     explained on the record; and separation of duties.
#
# Separation of duties, for approve and refund, whatever the role (admins
# included): nobody approves or refunds an invoice they own. Approving your
# own invoice and then refunding it is paying yourself; no single account
# may do either alone. The API sends the invoice's owner (resource.owner),
# located within the actor's tenant; an owner it could not locate is
# answered as not found (fail closed: it is also what the scoped query
# would answer for a missing or foreign row).
#
# Every condition yields a denial reason (status 403); when several fail,
# the first in sort order is reported.
package portcullis

workflow_denials contains "refund_reason_required" if {
	input.route.id == "invoices.refund"
	grant_role == "support"
	not refund_reason_submitted
}

# A rule of its own, not `not "reason" in input.fields.submitted`: OPA
# evaluates the operands of a negated call before the negation, so a missing
# fields.submitted would fail that body and drop the denial (fail open).
refund_reason_submitted if "reason" in input.fields.submitted

# Separation of duties needs the invoice's owner, which the API locates
# within the actor's tenant. No owner means no such invoice for this actor:
# answered as not found (decision.rego, check 9b), exactly like a missing
# or foreign invoice, so the answer never tells the two apart.
workflow_row_not_located if {
	input.route.id in duty_separated_routes
	not input.resource.owner
}

duty_separated_routes := {"invoices.approve", "invoices.refund"}

workflow_denials contains "separation_of_duties" if {
	input.route.id in duty_separated_routes
	input.resource.owner == input.actor.id
}

workflow_denial := sort(workflow_denials)[0]
