# Decision-log dropping: data.system.log.drop (OPA's drop contract).
#
# Evaluated with the whole event as input; when true the event is not
# logged. We drop exactly one kind of event: ALLOWED anonymous health checks
# (load balancers poll /health every few seconds; those events say nothing
# and would drown the log). Everything else is kept, in particular:
#   - every deny (result.allow is not true) is kept, on every route;
#   - every event with an error (the PDP denied on its own) is kept;
#   - authenticated health checks and anonymous openapi.get are kept
#     (unusual, or reconnaissance worth seeing).
package system.log

default drop := false

drop if {
	input.path in {"portcullis/decision", "/portcullis/decision"}
	input.result.allow == true
	input.result.status == 200
	not input.error
	input.input.route.id == "health.get"
	input.input.actor.id == "anonymous"
}
