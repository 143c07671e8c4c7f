# Property-level authorization: read/write field sets, protected and
# retired fields, the one behaviour for non-writable submitted fields.
package portcullis_test

import data.portcullis

protected_names := {"isAdmin", "owner_id", "tenant_id", "account_credit_cents", "support_priority", "role", "debug"}

retired_names := {"role", "billingPlan", "internalNotes"}

invoice_reads := [["invoices.get", "GET", "read"], ["invoices.list", "GET", "list"], ["invoices.export", "GET", "export"], ["invoices.batch", "POST", "read"]]

test_invoice_reads_share_one_field_set_per_role if {
	every who in ["member", "support", "admin"] {
		sets := {decide(who, r[0], r[1], r[2]).fields.read | some r in invoice_reads}
		count(sets) == 1
	}
}

test_support_reads_fewer_invoice_fields_than_admin if {
	admin := {f | some f in decide("admin", "invoices.get", "GET", "read").fields.read}
	support := {f | some f in decide("support", "invoices.get", "GET", "read").fields.read}
	member := {f | some f in decide("member", "invoices.get", "GET", "read").fields.read}
	support - admin == set()
	count(support) < count(admin)
	"owner_id" in admin
	not "owner_id" in support
	not "owner_id" in member
}

test_own_profile_fields if {
	every who in ["member", "support", "admin"] {
		d := decide(who, "users.me.get", "GET", "read")
		d.fields.read == ["id", "email", "displayName"]
		d.fields.write == []
		u := decide(who, "users.me.update", "PATCH", "update")
		u.fields.write == ["displayName"]
	}
}

test_profile_update_with_writable_fields_is_allowed if {
	d := decide_with("member", "users.me.update", "PATCH", "update", {"fields": {"submitted": ["displayName"]}})
	d.allow
}

# The profile's contract is id, email, displayName: locale and createdAt are
# internal, so locale is no longer writable (nor readable) through any version.
test_profile_locale_is_not_writable if {
	d := decide_with("member", "users.me.update", "PATCH", "update", {"fields": {"submitted": ["displayName", "locale"]}})
	d.reason == "field_not_writable"
}

# owner_id is the wire name (invoice views) and the protected name: a view
# mistake cannot show it to members.
test_owner_id_stays_hidden_from_members_even_if_a_view_lists_it if {
	leaky := object.union(data.portcullis.fields.views, {"invoice.member": ["id", "owner_id", "tenant_id"]})
	d := decide("member", "invoices.get", "GET", "read") with data.portcullis.fields.views as leaky
	d.fields.read == ["id"]
}

test_profile_update_with_a_protected_field_is_403 if {
	every f in protected_names {
		d := decide_with("member", "users.me.update", "PATCH", "update", {"fields": {"submitted": ["displayName", f]}})
		d == {"allow": false, "status": 403, "reason": "field_not_writable", "scope": {}, "fields": {"read": [], "write": []}}
	}
}

test_protected_fields_are_not_writable_even_by_admins if {
	every f in protected_names {
		d := decide_with("admin", "users.me.update", "PATCH", "update", {"fields": {"submitted": [f]}})
		d.reason == "field_not_writable"
	}
}

test_retired_fields_are_refused_on_writes if {
	every f in retired_names {
		decide_with("admin", "users.me.update", "PATCH", "update", {"fields": {"submitted": [f]}}).reason == "field_not_writable"
	}
}

test_unknown_field_is_403_on_every_write_route if {
	every route_id, r in data.portcullis.routes {
		every method in r.methods {
			d := decide_with("admin", route_id, method, r.action, object.union(located_row(route_id), {"fields": {"submitted": ["isAdmin"]}}))
			d.status == 403
			d.reason == "field_not_writable"
		}
	}
}

test_invite_cannot_set_a_role if {
	decide_with("admin", "users.invite", "POST", "invite", {"fields": {"submitted": ["email"]}}).allow
	decide_with("admin", "users.invite", "POST", "invite", {"fields": {"submitted": ["email", "role"]}}).reason == "field_not_writable"
}

test_batch_body_carries_ids_only if {
	decide_with("member", "invoices.batch", "POST", "read", {"fields": {"submitted": ["ids"]}}).allow
	decide_with("member", "invoices.batch", "POST", "read", {"fields": {"submitted": ["ids", "owner_id"]}}).reason == "field_not_writable"
}

test_no_decision_ever_exposes_a_retired_or_unpermitted_protected_field if {
	every route_id, r in data.portcullis.routes {
		every method in r.methods {
			every who in ["anonymous", "none", "member", "support", "admin"] {
				d := decide(who, route_id, method, r.action)
				every f in d.fields.read {
					not f in retired_names
					not hidden_protected(f, who)
				}
				every f in d.fields.write {
					not f in protected_names
					not f in retired_names
				}
			}
		}
	}
}

hidden_protected(f, who) if {
	f in protected_names
	not who in data.portcullis.fields.protected[f].readable_by
}

# Defence in depth: even when a view lists a protected or retired field by
# mistake, the policy filters it out.
test_view_mistakes_cannot_expose_protected_fields if {
	leaky := object.union(data.portcullis.fields.views, {
		"profile.self": ["id", "email", "isAdmin", "support_priority", "billingPlan", "internalNotes", "role"],
		"profile.self_write": ["displayName", "isAdmin", "owner_id", "role", "debug"],
	})
	m := decide("member", "users.me.update", "PATCH", "update") with data.portcullis.fields.views as leaky
	m.fields.read == ["id", "email"]
	m.fields.write == ["displayName"]
	s := decide("support", "users.me.update", "PATCH", "update") with data.portcullis.fields.views as leaky
	s.fields.read == ["id", "email", "support_priority"]
	a := decide("admin", "users.me.update", "PATCH", "update") with data.portcullis.fields.views as leaky
	a.fields.read == ["id", "email", "isAdmin", "support_priority"]
	a.fields.write == ["displayName"]
}

test_denied_decisions_grant_no_fields if {
	d := decide("member", "admin.export", "POST", "export")
	d.fields == {"read": [], "write": []}
}

# Fail closed: a protected entry that lists no readable_by is hidden from
# every role, and a view listing it does not expose it.
test_protected_entry_without_readable_by_is_hidden if {
	leaky := object.union(data.portcullis.fields.views, {"profile.self": ["id", "email", "isAdmin"]})
	every who in ["member", "support", "admin"] {
		d := decide(who, "users.me.get", "GET", "read") with data.portcullis.fields.views as leaky
			with data.portcullis.fields.protected.isAdmin as {}
		d.fields.read == ["id", "email"]
	}
}
