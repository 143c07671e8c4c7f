package system.log_test

import data.system.log

event(inp) := {
	"decision_id": "8f7e0a52-1f4c-4f8e-9d0e-3c2b1a0f9e8d",
	"labels": {"id": "i-1", "version": "0.1.0"},
	"timestamp": "2026-11-21T14:00:00Z",
	"path": "portcullis/decision",
	"input": inp,
	"result": {"allow": true, "status": 200, "reason": "allowed", "scope": {"tenant_id": "t_acme"}, "fields": {"read": ["id"], "write": []}},
}

ordinary := {
	"actor": {"id": "u_alice", "tenant": "t_acme", "roles": ["member"]},
	"action": "update",
	"resource": {"type": "user", "id": "0b4c7b1e-7a35-4e55-9b43-2a5c1d0e7f11", "tenant": "t_acme", "owner": "u_alice"},
	"route": {"id": "users.me.update", "method": "PATCH", "version": "v2"},
	"fields": {"submitted": ["displayName", "locale", "isAdmin"]},
	"params": ["q", "page"],
}

upsert(path) := {"op": "upsert", "path": path, "value": "[REDACTED]"}

test_mask_leaves_an_ordinary_input_alone if {
	log.mask == set() with input as event(ordinary)
}

test_mask_is_defined_without_an_input if {
	log.mask == set() with input as {"decision_id": "x", "path": "portcullis/decision"}
}

test_mask_erases_the_known_secret_places if {
	inp := object.union(ordinary, {
		"actor": {"token": "t0k"},
		"password": "hunter2",
		"token": "t",
		"secret": "s",
		"headers": {"authorization": "Bearer abc", "cookie": "sid=1", "x-request-id": "r1"},
	})
	m := log.mask with input as event(inp)
	m == {"/input/actor/token", "/input/password", "/input/token", "/input/secret", "/input/headers/authorization", "/input/headers/cookie"}
}

test_mask_secret_names_in_any_style_and_depth if {
	inp := {"fields": {"values": {"newPassword": "x", "client_secret": "y", "profile": {"X-Api-Key": "z", "apiKey": "k", "card_number": "4111", "name": "Ann"}}}, "a": [{"accessToken": "q"}]}
	m := log.mask with input as event(inp)
	m == {
		"/input/fields/values/newPassword",
		"/input/fields/values/client_secret",
		"/input/fields/values/profile/X-Api-Key",
		"/input/fields/values/profile/apiKey",
		"/input/fields/values/profile/card_number",
		"/input/a/0/accessToken",
	}
}

test_mask_lists_only_the_outermost_secret_key if {
	inp := {"credentials": {"token": "a", "password": "b"}}
	log.mask == {"/input/credentials"} with input as event(inp)
}

test_mask_escapes_pointer_segments if {
	inp := {"odd/key~": {"password": "p"}}
	log.mask == {"/input/odd~1key~0/password"} with input as event(inp)
}

test_mask_redacts_credential_values_under_any_key if {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1X2FsaWNlIn0.c2ln"
	inp := object.union(ordinary, {"resource": {"id": jwt}, "note": "Bearer abc.def", "pem": "-----BEGIN PRIVATE KEY-----\nMII"})
	m := log.mask with input as event(inp)
	m == {upsert("/input/resource/id"), upsert("/input/note"), upsert("/input/pem")}
}

test_mask_redacts_secret_like_submitted_field_and_param_names if {
	inp := object.union(ordinary, {
		"fields": {"submitted": ["displayName", "password", "isAdmin", "X9fQ2mZ7vL1pR8sT4wY6uB3nC5kD0hJa"]},
		"params": ["q", "access_token"],
	})
	m := log.mask with input as event(inp)
	m == {upsert("/input/fields/submitted/1"), upsert("/input/fields/submitted/3"), upsert("/input/params/1")}
}

test_mask_never_touches_actor_route_or_result if {
	inp := object.union(ordinary, {"actor": {"token": "t"}})
	m := log.mask with input as event(inp)
	count(m) == 1
	every p in m {
		is_string(p)
		not startswith(p, "/input/actor/id")
		not startswith(p, "/input/route")
		not startswith(p, "/result")
	}
}

test_mask_short_secret_names_match_exactly if {
	inp := {"pin": "1234", "otp": "000111", "pinned": true, "shipping": "x", "account": {"CVV": "123"}}
	log.mask == {"/input/pin", "/input/otp", "/input/account/CVV"} with input as event(inp)
}

test_mask_survives_odd_shapes if {
	log.mask == set() with input as event({"fields": {"submitted": [1, null, {"a": 2}]}, "params": {"q": 7}})
	log.mask == set() with input as event("just a string")
	log.mask == {"/input/0/token"} with input as event([{"token": "t"}])
}

test_mask_erases_what_is_too_deep_to_inspect if {
	inp := {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"password": "p"}, "i": "plain"}}}}}}}}
	log.mask == {"/input/a/b/c/d/e/f/g/h"} with input as event(inp)
}
