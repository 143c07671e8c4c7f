/**
 * The decision trail: which rule bodies succeeded in an evaluation, recorded
 * by the module itself at a few instructions per body, so every decision can
 * say which rule decided it and on what (pdp/trail.ts reads it).
 *
 * - The planner gives each rule body it plans (plain, `else` branch,
 *   `default`) a small id, and emits a TrailStmt where the body's head takes
 *   its value (the body succeeded: OPA's Exit event).
 * - The module keeps, in a fixed region of static memory past the data
 *   segment, the ids of the bodies that succeeded in the current
 *   evaluation, each once, in the order they first did; `eval` and
 *   `opa_eval` empty it before every evaluation. The export TRAIL_EXPORT
 *   `() -> address` gives the region: a u32 count, then `count` u16 ids.
 *   A one-byte flag per body keeps each id once, so the region never
 *   overflows (a body that succeeds per element of a loop, or per call of a
 *   function, is listed once).
 * - The id -> {rule, file, row, refs, reads} table travels inside the Wasm
 *   itself, as the custom section TRAIL_SECTION (JSON): it cannot drift from
 *   the code that emits the ids. @open-policy-agent/opa-wasm ignores both
 *   the extra export and the custom section.
 *
 * Layout of the region (TrailLayout): `head` u32 count | u16 ids x capacity
 * | u8 seen flags x capacity. capacity = the number of bodies (at most
 * MAX_TRAIL_BODIES; bodies past that are planned without a TrailStmt).
 */
import type { CheckedRule, Program } from "./check";
import { ruleBodyDeps } from "./check/recursion";
import type { TrailBody } from "./plan/ir";
import { visitBody, visitTerm, type TermVisitor } from "./walk";
import { ByteReader } from "./emit/wasm/bytes";
import { findCustom, readModule } from "./emit/wasm/module";

export type { TrailBody } from "./plan/ir";

/** The custom section holding the table, as JSON `{"version": 1, "bodies": TrailBody[]}`. */
export const TRAIL_SECTION = "portcullis.trail";
/** The export `() -> i32`: the address of the region (a u32 count, then the u16 ids). */
export const TRAIL_EXPORT = "portcullis_trail";
/** Ids are u16 in the region. */
export const MAX_TRAIL_BODIES = 0xffff;

const TABLE_VERSION = 1;

/** Where the region's parts are, for `capacity` bodies from `head`. */
export interface TrailLayout {
  head: number;
  ids: number;
  seen: number;
}

/** Bytes the region takes for `capacity` bodies. */
export function trailRegionSize(capacity: number): number {
  return 4 + 3 * capacity;
}

export function trailLayout(head: number, capacity: number): TrailLayout {
  return { head, ids: head + 4, seen: head + 4 + 2 * capacity };
}

/** The table entry of one rule body: its rule, position, the rules it may read and the input paths it reads. */
export function trailBodyOf(program: Program, rule: CheckedRule, kind: TrailBody["kind"]): TrailBody {
  const refs = [...ruleBodyDeps(program.root, rule)].map((n) => n.path.join(".")).sort();
  const reads = new Set<string>();
  const inputs: TermVisitor = {
    term: (t) => {
      if (t.type === "var" && t.name === "input") reads.add("input");
      if (t.type !== "ref" || t.terms[0]!.type !== "var" || t.terms[0]!.name !== "input") return;
      // The ref's constant prefix is the path read; its other operands are walked for reads of their own.
      const path = ["input"];
      let i = 1;
      for (; i < t.terms.length && t.terms[i]!.type === "string"; i++) path.push((t.terms[i] as { value: string }).value);
      reads.add(path.join("."));
      t.terms.slice(i).forEach((x) => visitTerm(x, inputs));
      return "skip";
    },
  };
  [rule.value, ...rule.key, ...rule.args].forEach((t) => visitTerm(t, inputs));
  visitBody(rule.body, inputs);
  return { rule: rule.path.join("."), file: rule.loc.file, row: rule.loc.row, kind, refs, reads: [...reads].sort() };
}

export function encodeTrailTable(bodies: TrailBody[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ version: TABLE_VERSION, bodies }));
}

/**
 * The table a module carries, or null when it has none (compiled without a
 * trail, or by another compiler). Throws when the section is there but not
 * a table this version reads.
 */
export function readTrailTable(wasm: Uint8Array): TrailBody[] | null {
  const section = findCustom(readModule(wasm), TRAIL_SECTION);
  if (!section) return null;
  const payload = customPayload(section.body);
  const table = JSON.parse(new TextDecoder().decode(payload)) as { version?: unknown; bodies?: unknown };
  if (table.version !== TABLE_VERSION || !Array.isArray(table.bodies) || !table.bodies.every(isTrailBody)) {
    throw new Error(`${TRAIL_SECTION}: not a version ${TABLE_VERSION} table`);
  }
  return table.bodies;
}

function isTrailBody(b: unknown): b is TrailBody {
  const o = b as Partial<TrailBody> | null;
  const strings = (xs: unknown) => Array.isArray(xs) && xs.every((x) => typeof x === "string");
  return (
    typeof o === "object" &&
    o !== null &&
    typeof o.rule === "string" &&
    typeof o.file === "string" &&
    typeof o.row === "number" &&
    ["body", "else", "default"].includes(o.kind as string) &&
    strings(o.refs) &&
    strings(o.reads)
  );
}

/** A custom section's body is its name (a length-prefixed UTF-8 string) then its payload. */
function customPayload(body: Uint8Array): Uint8Array {
  const r = new ByteReader(body);
  r.name();
  return body.subarray(r.pos);
}

/** The ids the region at `head` holds now (after an evaluation): the bodies that succeeded, first success first. */
export function readTrailIds(memory: ArrayBuffer, head: number): number[] {
  const view = new DataView(memory);
  const count = view.getUint32(head, true);
  return Array.from({ length: count }, (_, i) => view.getUint16(head + 4 + 2 * i, true));
}
