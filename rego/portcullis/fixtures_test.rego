# Shared fixtures of the policy tests: actors and request builders.
package portcullis_test

import data.portcullis

actors := {
	"anonymous": {"id": "anonymous", "tenant": null, "roles": []},
	"member": {"id": "u_alice", "tenant": "t_acme", "roles": ["member"]},
	"other_member": {"id": "u_bob", "tenant": "t_acme", "roles": ["member"]},
	"support": {"id": "u_sam", "tenant": "t_acme", "roles": ["support"]},
	"admin": {"id": "u_carol", "tenant": "t_acme", "roles": ["admin"]},
	"foreign_admin": {"id": "u_dave", "tenant": "t_globex", "roles": ["admin"]},
	"none": {"id": "u_nora", "tenant": "t_acme", "roles": []},
}

resource_types := {id: r.resource | some id, r in data.portcullis.routes}

# A request on a route, with no row known and no body.
# (object.union merges recursively: to replace the actor, use request_as.)
request(who, route_id, method, action) := request_as(actors[who], route_id, method, action)

request_as(actor, route_id, method, action) := {
	"actor": actor,
	"action": action,
	"resource": {"type": object.get(resource_types, route_id, "unknown")},
	"route": {"id": route_id, "method": method, "version": "v2"},
	"fields": {"submitted": []},
	"params": [],
}

decide(who, route_id, method, action) := d if {
	d := portcullis.decision with input as request(who, route_id, method, action)
}

# The same request with extra input (a known row, submitted fields, ...).
decide_with(who, route_id, method, action, extra) := d if {
	d := portcullis.decision with input as object.union(request(who, route_id, method, action), extra)
}

# Every expected status of a row of the route x role matrix holds.
matrix_holds(route_id, method, action, expected) if {
	every who, status in expected {
		decide(who, route_id, method, action).status == status
	}
}

# Approve and refund are asked about a located row (separation of duties
# needs its owner: u_bob, someone else); other routes without one.
located_row(route_id) := {"resource": {"tenant": "t_acme", "owner": "u_bob"}} if {
	route_id in portcullis.duty_separated_routes
} else := {}
