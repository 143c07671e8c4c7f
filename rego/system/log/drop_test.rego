package system.log_test

import data.system.log

health_event(actor, result) := {
	"decision_id": "d1",
	"path": "portcullis/decision",
	"input": {
		"actor": actor,
		"action": "read",
		"resource": {"type": "health"},
		"route": {"id": "health.get", "method": "GET", "version": "v1"},
	},
	"result": result,
}

anonymous := {"id": "anonymous", "tenant": null, "roles": []}

allowed := {"allow": true, "status": 200, "reason": "allowed", "scope": {}, "fields": {"read": ["status"], "write": []}}

denied := {"allow": false, "status": 403, "reason": "no_policy", "scope": {}, "fields": {"read": [], "write": []}}

test_drop_allowed_anonymous_health_checks if {
	log.drop with input as health_event(anonymous, allowed)
	log.drop with input as object.union(health_event(anonymous, allowed), {"path": "/portcullis/decision"})
}

test_drop_never_drops_a_deny if {
	not log.drop with input as health_event(anonymous, denied)
	not log.drop with input as object.remove(health_event(anonymous, allowed), {"result"})
	not log.drop with input as health_event(anonymous, object.union(allowed, {"allow": "true"}))
}

test_drop_keeps_errors if {
	not log.drop with input as object.union(health_event(anonymous, allowed), {"error": {"code": "eval_error", "message": "x"}})
}

test_drop_keeps_everything_else if {
	member := {"id": "u_alice", "tenant": "t_acme", "roles": ["member"]}
	not log.drop with input as health_event(member, allowed)
	not log.drop with input as object.union(health_event(anonymous, allowed), {"input": {"route": {"id": "openapi.get"}}})
	not log.drop with input as object.union(health_event(anonymous, allowed), {"path": "portcullis/other"})
	log.drop == false with input as {}
}
