/**
 * Strict validation of the policy's answer: only a well-formed decision
 * reaches the API; anything else is `invalid_decision` (a 503 deny).
 *
 *   const decision = validateDecision(result, input.actor); // throws PdpError
 *
 * The rules (the API relies on each of them):
 * - exactly the keys allow, status, reason, scope, fields; scope only
 *   tenant_id / owner_id; fields exactly read / write. An unknown key is
 *   refused rather than ignored: a misspelt `scope.tenantId` would otherwise
 *   silently drop a row filter.
 * - allow boolean; status an integer 100-599; reason a non-empty string;
 *   scope values non-empty strings; fields.read / fields.write arrays of strings.
 * - an allow carries status 200. A deny carries a 4xx/5xx status: a deny
 *   answered with 2xx/3xx would look like success to the client.
 * - an allow for a tenant-bound actor (actor.tenant set) carries a
 *   scope.tenant_id, so every query of that request is tenant-filtered.
 *   Whether it must equal the actor's tenant is the policy's call (support
 *   staff may act for another tenant); the PDP only refuses an unscoped allow.
 *
 * A result the engine shares (deep-frozen: the same result bytes give the
 * same value, pdp/result-sets.ts) is checked once: its decision, itself
 * deep-frozen, is remembered by the value, and only the rule that depends
 * on the caller (the tenant-bound actor's scope) runs again on every call.
 * A value that can still change (not frozen all through, or read through a
 * getter) is checked every time. Checking the ~200-byte decision was ~4%
 * of decide().
 */
import { PdpError } from "./errors";
import type { Actor, Decision, DecisionScope } from "./types";

const DECISION_KEYS = ["allow", "status", "reason", "scope", "fields"];
const SCOPE_KEYS = ["tenant_id", "owner_id"];
const FIELDS_KEYS = ["read", "write"];

/** The decisions of frozen results checked before, by that result (its validity cannot change). */
const validated = new WeakMap<object, Decision>();

export function validateDecision(value: unknown, actor: Actor | undefined): Decision {
  if (value === undefined) fail("the decision is undefined (no rule matched and there is no default)");
  const known = typeof value === "object" && value !== null ? validated.get(value) : undefined;
  if (known !== undefined) {
    checkActor(known, actor);
    return known;
  }
  const d = object(value, "decision");
  onlyKeys(d, DECISION_KEYS, "decision");
  if (typeof d.allow !== "boolean") fail("allow must be a boolean");
  const status = d.status;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
    fail("status must be an integer from 100 to 599");
  }
  if (typeof d.reason !== "string" || d.reason === "") fail("reason must be a non-empty string");

  const s = object(d.scope, "scope");
  onlyKeys(s, SCOPE_KEYS, "scope");
  const scope: DecisionScope = {};
  for (const key of SCOPE_KEYS as Array<keyof DecisionScope>) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== "string" || v === "") fail(`scope.${key} must be a non-empty string`);
    scope[key] = v;
  }

  const f = object(d.fields, "fields");
  onlyKeys(f, FIELDS_KEYS, "fields");
  const read = strings(f.read, "fields.read");
  const write = strings(f.write, "fields.write");

  if (d.allow) {
    if (status !== 200) fail(`an allow must carry status 200, not ${status}`);
  } else if (status < 400) {
    fail(`a deny must carry a 4xx or 5xx status, not ${status}`);
  }
  const decision: Decision = { allow: d.allow, status, reason: d.reason, scope, fields: { read, write } };
  checkActor(decision, actor);
  // A value that can never change has a decision that never does: shared, frozen, from now on.
  if (unchanging(d) && unchanging(s) && unchanging(f) && unchanging(f.read as object) && unchanging(f.write as object)) {
    Object.freeze(read);
    Object.freeze(write);
    Object.freeze(decision.fields);
    Object.freeze(scope);
    validated.set(d, Object.freeze(decision));
  }
  return decision;
}

/**
 * Whether what the checks read in `o` can never change: frozen, and every
 * property a plain value (a getter on a frozen object may still answer
 * anything). Run once per value remembered, never on a hit.
 */
function unchanging(o: object): boolean {
  if (!Object.isFrozen(o)) return false;
  for (const property of Object.values(Object.getOwnPropertyDescriptors(o))) if (!("value" in property)) return false;
  return true;
}

/** The rule that depends on who asks: an allow for a tenant-bound actor is tenant-scoped. */
function checkActor(decision: Decision, actor: Actor | undefined): void {
  if (decision.allow && typeof actor?.tenant === "string" && actor.tenant !== "" && decision.scope.tenant_id === undefined) {
    fail("an allow for a tenant-bound actor must carry scope.tenant_id");
  }
}

function fail(message: string): never {
  throw new PdpError("invalid_decision", message);
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function onlyKeys(o: Record<string, unknown>, allowed: string[], what: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) fail(`${what} has an unknown key ${JSON.stringify(k)} (allowed: ${allowed.join(", ")})`);
  }
}

/**
 * A copy of an array of strings (the result may be a value the engine
 * hands to every caller). One plain loop: checking with every() and
 * then spreading walked the array twice through callbacks and iterators,
 * a few percent of decide() for the six names of a read view.
 */
function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v)) fail(`${what} must be an array of strings`);
  const out: string[] = [];
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== "string") fail(`${what} must be an array of strings`);
    out.push(x);
  }
  return out;
}
