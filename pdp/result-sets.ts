/**
 * The result sets a module dumped lately, remembered by their BYTES: the
 * same bytes give back the same deep-frozen value and the same texts,
 * without decoding the bytes into a string or parsing them.
 *
 *   const memo = new ResultSets();
 *   const set = memo.read(memory, words, start, end); // set.value, set.text, set.resultText
 *
 * A policy answers the same few results over and over (the decision for a
 * route, role and owner; a mask list). Parsing the decision's ~200 bytes
 * was a sixth of decide(); a memory keyed by the text still paid for the
 * text (a UTF-8 decode) and for hashing it in a Map (together ~0.6 us of
 * ~7). Here the bytes are hashed where they lie, word by word, and a
 * candidate with that hash is used only when its bytes are EQUAL to the
 * module's (a full comparison on every hit): a hash collision costs a
 * parse, never a wrong value. Nothing is remembered but the bytes' own
 * parse, so a value can never differ from what JSON.parse would give for
 * the bytes the module just wrote; the policy is evaluated every time.
 *
 * Frozen because the same value is handed to every caller (the PDP copies
 * or validates what it keeps; the decision log never edits its draft).
 * Bounded in entries and in length; the oldest entry makes room (a policy
 * whose results are all distinct pays one hash and one parse each time).
 */

/** One result set: its value (deep-frozen when remembered), its JSON text, and the text of its one binding's `result`. */
export interface ResultSet {
  readonly value: unknown;
  /** The result set's JSON text, exactly the module's bytes decoded. */
  readonly text: string;
  /** The text of `result` in a result set shaped `[{"result":<value>}]`; undefined for any other shape. */
  readonly resultText: string | undefined;
}

interface Remembered extends ResultSet {
  /** A copy of the module's bytes: what a later dump must equal to be this set. */
  readonly bytes: Buffer;
  /** The same copy as 32-bit words (its own buffer, so word-aligned; the last partial word zero-padded). */
  readonly words: Int32Array;
}

export class ResultSets {
  static readonly MAX_ENTRIES = 512;
  /** Longer dumps are parsed every time: a large result is rarely repeated, and this bounds the memory to ~1.5 MiB. */
  static readonly MAX_BYTES = 1024;
  /** By the hash of the bytes; a later set with the same hash and other bytes takes the slot. */
  private readonly sets = new Map<number, Remembered>();

  /**
   * The result set whose JSON text is memory[start, end). `words` is an
   * Int32Array on the same ArrayBuffer as `memory` (offset 0): the bytes are
   * hashed four at a time.
   */
  read(memory: Buffer, words: Int32Array, start: number, end: number): ResultSet {
    const length = end - start;
    if (length > ResultSets.MAX_BYTES) return resultSetOf(memory.toString("utf8", start, end), false);
    const hash = hashOf(memory, words, start, end);
    const seen = this.sets.get(hash);
    if (seen !== undefined && seen.bytes.length === length && sameBytes(seen, memory, words, start)) return seen;
    const set = resultSetOf(memory.toString("utf8", start, end), true) as { -readonly [K in keyof Remembered]: Remembered[K] };
    const copy = copyOf(memory, start, end);
    set.bytes = copy.bytes;
    set.words = copy.words;
    if (seen !== undefined) this.sets.delete(hash);
    else if (this.sets.size >= ResultSets.MAX_ENTRIES) this.sets.delete(this.sets.keys().next().value as number);
    this.sets.set(hash, set);
    return set;
  }

  get size(): number {
    return this.sets.size;
  }
}

const RESULT_SET_PREFIX = '[{"result":';
const RESULT_SET_SUFFIX = "}]";

/** The result set of `text` (a result set's JSON text), its value deep-frozen when it is to be shared. */
export function resultSetOf(text: string, frozen: boolean): ResultSet {
  const value: unknown = JSON.parse(text);
  return { value: frozen ? deepFreeze(value) : value, text, resultText: resultTextOf(text, value) };
}

/**
 * The value's text inside a one-binding result set `[{"result":<value>}]`
 * (the module's dump has no whitespace), or undefined when the set is
 * shaped any other way (extra bindings: then the text is not cut).
 */
function resultTextOf(text: string, value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length !== 1) return undefined;
  const binding: unknown = value[0];
  if (typeof binding !== "object" || binding === null) return undefined;
  const keys = Object.keys(binding);
  if (keys.length !== 1 || keys[0] !== "result") return undefined;
  if (!text.startsWith(RESULT_SET_PREFIX) || !text.endsWith(RESULT_SET_SUFFIX)) return undefined;
  return text.slice(RESULT_SET_PREFIX.length, -RESULT_SET_SUFFIX.length);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * A 30-bit hash of memory[start, end) (a small integer: a Map key that is
 * never a heap number). Whole words where the bytes are aligned (a dump
 * starts on an allocator's boundary), single bytes around them; the length
 * is the seed. So the same bytes at an other alignment hash otherwise (and
 * take a slot of their own). Only a locator: a hit is confirmed byte for
 * byte.
 */
export function hashOf(memory: Buffer, words: Int32Array, start: number, end: number): number {
  // Four words at a time into four independent lanes: one lane's chain of
  // multiplies was the whole cost (each waits for the one before).
  let a = end - start;
  let b = 0x632be5ab;
  let c = 0x85ebca6b;
  let d = 0x27d4eb2f;
  let i = start;
  for (; i < end && (i & 3) !== 0; i++) a = mix(a, memory[i]);
  const lastWord = end >>> 2;
  let w = i >>> 2;
  for (; w + 4 <= lastWord; w += 4) {
    a = mix(a, words[w]);
    b = mix(b, words[w + 1]);
    c = mix(c, words[w + 2]);
    d = mix(d, words[w + 3]);
  }
  for (; w < lastWord; w++) a = mix(a, words[w]);
  for (i = Math.max(i, lastWord << 2); i < end; i++) b = mix(b, memory[i]);
  const h = mix(mix(mix(a, b), c), d);
  return (h ^ (h >>> 16)) & 0x3fffffff;
}

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x9e3779b1);
  return h ^ (h >>> 15);
}

/** A copy of memory[start, end) (the module reuses its memory) in a buffer of its own, whole words, for sameBytes. */
export function copyOf(memory: Buffer, start: number, end: number): { bytes: Buffer; words: Int32Array } {
  const words = new Int32Array((end - start + 3) >>> 2);
  const bytes = Buffer.from(words.buffer, 0, end - start);
  memory.copy(bytes, 0, start, end);
  return { bytes, words };
}

/**
 * Whether memory[start, start + set.bytes.length) equals the set's bytes:
 * word by word where the dump is aligned (twice as fast as Buffer#compare
 * for a ~200-byte dump, whose argument checks cost more than the
 * comparison), natively otherwise.
 */
export function sameBytes(set: Pick<Remembered, "bytes" | "words">, memory: Buffer, words: Int32Array, start: number): boolean {
  const length = set.bytes.length;
  if ((start & 3) !== 0) return set.bytes.compare(memory, start, start + length) === 0;
  const whole = length >>> 2;
  const at = start >>> 2;
  const own = set.words;
  for (let k = 0; k < whole; k++) if (words[at + k] !== own[k]) return false;
  for (let k = whole << 2; k < length; k++) if (memory[start + k] !== set.bytes[k]) return false;
  return true;
}
