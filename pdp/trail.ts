/**
 * The trail every decision carries: which rule body decided, and the rule
 * bodies it depended on, read from the module after each evaluation (the
 * compiler's side: packages/rego-wasm/compiler/trail.ts).
 *
 *   const reader = TrailReader.of(wasm, exports, memory); // null: the module records no trail
 *   engine.evaluate(...); const trail = reader.read(entrypointId, "portcullis/decision");
 *
 * What the trail holds, precisely:
 * - first, the body (or bodies) of the entrypoint's rule that succeeded:
 *   the one that gave the value. In an `else` chain that is the branch
 *   taken; when nothing else held, the `default`;
 * - then every body it depended on: the bodies that succeeded in this
 *   evaluation of the rules a body already in the trail reads (its head and
 *   body's `data` refs and function calls, as the compiler's dependency
 *   graph sees them), followed transitively, breadth-first: each entry is
 *   read by an entry above it (the bodies one entry reads in the order they
 *   succeeded).
 *   Bodies that succeeded on the way but that nothing in the trail reads (an
 *   `else` branch's condition evaluated and dropped, a rule a failed body
 *   asked for) are left out;
 * - per body: its rule, file:line, whether it is an `else` branch or the
 *   `default`, the input paths it reads (`reads`) and the rules it reads of
 *   which no body succeeded (`failed`: undefined for a complete rule or
 *   function, empty for a set or object rule). An `else` branch was taken
 *   because the branches above it failed: they are not listed.
 *
 * The module lists the succeeded bodies as small integer ids; the same ids
 * in the same order always resolve to the same trail, so trails are
 * resolved once per distinct sequence and shared (a few distinct ones per
 * route and role). A decision pays for reading the ids and one map lookup.
 */
import { readTrailTable, TRAIL_EXPORT, type TrailBody } from "@portcullis/rego-wasm";
import { copyOf, hashOf, sameBytes } from "./result-sets";

/** One rule body of a trail, as the decision log records it (event `custom.trail`). */
export interface TrailEntry {
  /** The rule, dotted, without `data`: `portcullis.outcome`. */
  rule: string;
  /** `file:line` of the body's head in the bundle's sources. */
  at: string;
  /** Absent for a plain body. */
  kind?: "else" | "default";
  /** Input paths the body reads (`input.route.id`). */
  reads?: string[];
  /** Rules the body reads of which no body succeeded. */
  failed?: string[];
}

/** A resolved trail and its JSON text (spliced into the logged event as it is). */
export interface RecordedTrail {
  readonly entries: readonly TrailEntry[];
  readonly json: string;
}

/** Distinct id sequences kept per entrypoint; past that the cache starts over (a bound, never reached by a real policy). */
const CACHE_LIMIT = 4096;

/** A resolved id sequence: a copy of its bytes (what a later sequence must equal to be it) and its trail. */
interface KnownSequence {
  readonly bytes: Buffer;
  readonly words: Int32Array;
  /** null when nothing of the entrypoint succeeded. */
  readonly trail: RecordedTrail | null;
}

export class TrailReader {
  /**
   * Per entrypoint id: id sequences resolved before, by the hash of their
   * bytes where the module wrote them (pdp/result-sets.ts: a hit is
   * confirmed byte for byte; a sequence with the same hash and other bytes
   * takes the slot). Making the bytes a string key cost a decode and a
   * string hash per decision, twice this.
   */
  private readonly cache: Array<Map<number, KnownSequence>> = [];
  /** The module's memory as 32-bit words, made again when the memory grew (its buffer changed). */
  private words: Int32Array<ArrayBufferLike> = new Int32Array(0);

  private constructor(
    private readonly table: readonly TrailBody[],
    private readonly head: number,
    /** The module's memory as it is now (its buffer changes when it grows). */
    private readonly memory: () => Buffer,
  ) {}

  /**
   * The reader of a module that records a trail; null when it records none
   * (compiled without it, by another compiler, or its table is unreadable:
   * its decisions then carry no trail, they are not refused).
   */
  static of(wasm: Uint8Array, exports: Record<string, unknown>, memory: () => Buffer): TrailReader | null {
    const address = exports[TRAIL_EXPORT];
    if (typeof address !== "function") return null;
    let table: TrailBody[] | null;
    try {
      table = readTrailTable(wasm);
    } catch {
      return null;
    }
    return table ? new TrailReader(table, (address as () => number)(), memory) : null;
  }

  /** The trail of the evaluation that just ran entrypoint `id` (slash path `entrypoint`); undefined when none of its bodies succeeded. */
  read(id: number, entrypoint: string): RecordedTrail | undefined {
    const bytes = this.memory();
    if (this.words.buffer !== bytes.buffer) this.words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
    const count = bytes.readUInt32LE(this.head);
    const start = this.head + 4;
    const end = start + 2 * count;
    const hash = hashOf(bytes, this.words, start, end);
    const cache = (this.cache[id] ??= new Map());
    const seen = cache.get(hash);
    if (seen !== undefined && seen.bytes.length === end - start && sameBytes(seen, bytes, this.words, start)) return seen.trail ?? undefined;
    const ids = Array.from({ length: count }, (_, i) => bytes.readUInt16LE(start + 2 * i));
    const trail = resolveTrail(this.table, ids, entrypoint);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(hash, { ...copyOf(bytes, start, end), trail });
    return trail ?? undefined;
  }
}

/** The trail of entrypoint `entrypoint` from the bodies that succeeded (`ids`, first success first), or null when none of its own did. */
export function resolveTrail(table: readonly TrailBody[], ids: readonly number[], entrypoint: string): RecordedTrail | null {
  const rule = entrypoint.replace(/^\/+|\/+$/g, "").replace(/\//g, ".");
  const own = (r: string) => rule === "" || rule === "data" || r === rule || r.startsWith(`${rule}.`);
  const succeeded = new Map<string, number[]>();
  for (const id of ids) {
    const body = table[id];
    if (!body) continue; // not this module's id: never written by the module, kept out rather than trusted
    const list = succeeded.get(body.rule) ?? [];
    list.push(id);
    succeeded.set(body.rule, list);
  }
  const deciding = ids.filter((id) => table[id] && own(table[id].rule));
  if (deciding.length === 0) return null;
  const order = new Map(ids.map((id, i) => [id, i]));
  const inTrail = new Set(deciding);
  const queue = [...deciding];
  for (let i = 0; i < queue.length; i++) {
    const read = table[queue[i]].refs.flatMap((ref) => succeeded.get(ref) ?? []).filter((id) => !inTrail.has(id));
    for (const id of read.sort((a, b) => order.get(a)! - order.get(b)!)) {
      if (inTrail.has(id)) continue;
      inTrail.add(id);
      queue.push(id);
    }
  }
  const entries = queue.map((id) => entryOf(table[id], succeeded));
  return Object.freeze({ entries: Object.freeze(entries.map((e) => Object.freeze(e))), json: JSON.stringify(entries) });
}

function entryOf(body: TrailBody, succeeded: ReadonlyMap<string, number[]>): TrailEntry {
  const entry: TrailEntry = { rule: body.rule, at: `${body.file}:${body.row}` };
  if (body.kind !== "body") entry.kind = body.kind;
  if (body.reads.length > 0) entry.reads = body.reads;
  const failed = body.refs.filter((r) => !succeeded.has(r));
  if (failed.length > 0) entry.failed = failed;
  return entry;
}
