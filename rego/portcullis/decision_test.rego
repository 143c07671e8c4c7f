# The decision pipeline: always defined, ordered checks, shape of results.
package portcullis_test

import data.portcullis

deny_shape := {"allow": false, "scope": {}, "fields": {"read": [], "write": []}}

test_no_input_is_denied if {
	d := portcullis.decision
	d.allow == false
	d.status == 403
	d.reason == "no_policy"
}

test_unknown_route_is_no_policy if {
	d := decide("admin", "invoices.delete", "DELETE", "delete")
	object.subset(d, deny_shape)
	d.status == 403
	d.reason == "no_policy"
}

test_unknown_route_is_no_policy_for_anonymous_too if {
	d := decide("anonymous", "debug.vars", "GET", "read")
	d.status == 403
	d.reason == "no_policy"
}

test_malformed_inputs_are_denied_never_undefined if {
	every inp in [
		{},
		{"route": "invoices.get"},
		{"route": {"id": ["invoices.get"]}, "actor": actors.admin},
		{"route": {"id": "invoices.get", "method": 7}, "actor": actors.admin, "action": "read"},
		{"route": {"id": "invoices.get", "method": "GET"}, "actor": "u_carol", "action": "read"},
		{"route": {"id": "invoices.get", "method": "GET"}, "actor": {"id": "u_carol", "roles": "admin", "tenant": "t_acme"}, "action": "read"},
	] {
		d := portcullis.decision with input as inp
		d.allow == false
		d.status in {401, 403}
	}
}

test_method_not_listed_is_403 if {
	d := decide("admin", "invoices.get", "DELETE", "read")
	object.subset(d, deny_shape)
	d.status == 403
	d.reason == "method_not_allowed"
}

test_method_is_case_insensitive if {
	decide("admin", "invoices.get", "get", "read").allow
}

test_action_other_than_the_routes_is_denied if {
	d := decide("admin", "invoices.get", "GET", "delete")
	d.status == 403
	d.reason == "action_not_allowed"
}

test_resource_type_other_than_the_routes_is_denied if {
	d := decide_with("admin", "invoices.get", "GET", "read", {"resource": {"type": "user", "id": "u_bob"}})
	d.status == 403
	d.reason == "resource_mismatch"
}

test_resource_type_may_be_omitted if {
	decide_with("admin", "invoices.get", "GET", "read", {"resource": {}}).allow
}

test_anonymous_on_authenticated_route_is_401 if {
	d := decide("anonymous", "invoices.list", "GET", "list")
	object.subset(d, deny_shape)
	d.status == 401
	d.reason == "authentication_required"
}

test_anonymous_roles_are_ignored if {
	forged := {"id": "anonymous", "tenant": "t_acme", "roles": ["admin"]}
	d := portcullis.decision with input as request_as(forged, "admin.export", "POST", "export")
	d.status == 401
}

test_missing_or_empty_actor_id_is_anonymous if {
	every actor in [{"tenant": "t_acme", "roles": ["admin"]}, {"id": "", "tenant": "t_acme", "roles": ["admin"]}, {"id": null, "roles": ["admin"]}] {
		d := portcullis.decision with input as request_as(actor, "users.me.get", "GET", "read")
		d.status == 401
	}
}

test_allowed_decision_shape if {
	d := decide("admin", "invoices.list", "GET", "list")
	object.keys(d) == {"allow", "status", "reason", "scope", "fields"}
	d.allow == true
	d.status == 200
	d.reason == "allowed"
	is_array(d.fields.read)
	is_array(d.fields.write)
}

test_params_never_change_the_decision if {
	every who in ["anonymous", "member", "support", "admin"] {
		plain := decide(who, "internal.reports.export", "GET", "export")
		every params in [["debug"], ["admin", "role"], ["format", "include", "expand", "next"]] {
			decide_with(who, "internal.reports.export", "GET", "export", {"params": params}) == plain
		}
	}
}

test_first_failing_check_wins if {
	# anonymous AND wrong method: the route-level check comes first
	decide("anonymous", "invoices.get", "POST", "read").reason == "method_not_allowed"

	# member on an admin route with a foreign row: 403, the row is never looked at
	d := decide_with("member", "invoices.approve", "POST", "approve", {"resource": {"type": "invoice", "tenant": "t_globex"}})
	d.status == 403
	d.reason == "role_required"
}
