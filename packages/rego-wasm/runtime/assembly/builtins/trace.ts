/**
 * trace(note): OPA adds the note to the query's explanation (an event for
 * its tracer) and answers true. A compiled policy has no tracer, so the
 * note goes nowhere: the call is true for a string, and undefined for
 * anything else (OPA's type error, non-strict).
 */
import { Value, TRUE, T_STRING } from "../value";

export function bi_trace(a: Value | null): Value | null {
  return a !== null && a.kind == T_STRING ? TRUE : null;
}
