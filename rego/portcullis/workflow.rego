# Workflow actions on invoices: each action is its own route with its own
# grants (routes/data.json), never a generic "update invoice" permission,
# and each may add conditions here that the table cannot express.
#
#   invoices.approve  admins only. The table grants admin alone; nothing more.
#   invoices.publish  admins (tenant-wide), or the member who owns the
#                     invoice: the member grant is owner-scoped, so the API
#                     queries WHERE owner_id = actor, and a known foreign
#                     owner is 404 (tenancy.rego).
#   invoices.refund   admins; support only when BOTH
#                     1. the refund states a reason (the body carries
#                        "reason"), so every staff refund is explained on the
#                        record; and
#                     2. separation of duties: the API has sent the invoice
#                        owner (resource.owner) and it is not the support
#                        agent: support never refunds its own invoices. An
#                        unknown owner is denied (fail closed).
#
# Every condition yields a denial reason (status 403); when several fail,
# the first in sort order is reported.
package portcullis

workflow_denials contains "refund_reason_required" if {
	input.route.id == "invoices.refund"
	grant_role == "support"
	not "reason" in submitted_fields
}

# Support's refund rule needs the invoice's owner, which the API locates
# within the actor's tenant. No owner means no such invoice for this actor:
# answered as not found (decision.rego, check 9b), exactly like a missing
# or foreign invoice, so the answer never tells the two apart.
refund_row_not_located if {
	input.route.id == "invoices.refund"
	grant_role == "support"
	not input.resource.owner
}

workflow_denials contains "separation_of_duties" if {
	input.route.id == "invoices.refund"
	grant_role == "support"
	input.resource.owner == input.actor.id
}

workflow_denial := sort(workflow_denials)[0]
