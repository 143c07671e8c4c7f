# Property-level authorization: which fields the actor may read and write.
#
# A grant names a read view and (for routes with a body) a write view from
# fields/data.json. Two lists there are enforced here on top of the views,
# so a mistake in a view cannot expose or open them:
#   - protected fields (isAdmin, owner_id, tenant_id, account_credit_cents,
#     support_priority, role, debug): NEVER writable through any route, and
#     readable only by the roles listed for each;
#   - retired fields (role, billingPlan, internalNotes: old versions' fields):
#     never readable nor writable, by anyone, through any version.
#
# Writes, ONE behaviour for every route: the API sends the names of the body
# fields it received in fields.submitted; if ANY of them is not in
# fields.write the whole request is denied (403 field_not_writable). We never
# allow a request and silently drop fields: a caller trying to set isAdmin
# gets a refusal, not a 200 that looks like success.
package portcullis

views := data.portcullis.fields.views

protected := data.portcullis.fields.protected

retired := data.portcullis.fields.retired

# Protected fields the granted role may not read.
hidden_from_grant contains f if {
	some f, p in protected
	not readable_by_grant(p)
}

# A function of its own, not `not grant_role in p.readable_by`: OPA evaluates
# the operands of a negated call before the negation, so an entry without
# readable_by (or no grant role) would fail that body and leave the field
# visible (fail open).
readable_by_grant(p) if grant_role in p.readable_by

read_fields := [f |
	some f in views[grant.read]
	not retired[f]
	not f in hidden_from_grant
]

# A grant without a write view writes nothing.
write_fields := [f |
	some f in views[grant.write]
	not retired[f]
	not protected[f]
]

# input.fields.submitted: the body field names of the request ([] when the
# request has no body). Read in place, never turned into a set: a body can
# carry over a thousand names, and each is only checked against the few
# writable ones.
field_not_writable if {
	some f in input.fields.submitted
	not f in write_fields
}
