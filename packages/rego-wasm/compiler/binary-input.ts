/**
 * The binary input encoding, host side: a JS value written straight into a
 * policy module's memory as the items runtime/assembly/binary.ts reads
 * (layout there), for the module's `portcullis_eval` export.
 *
 * Why: on a small policy, JSON.stringify of the input, copying its text
 * into Wasm memory and parsing it there were most of an evaluation. Here
 * the host walks its objects once and writes lengths and UTF-16 units the
 * module copies as they are: no text, no scanning, no escapes, no number
 * parsing for integers.
 *
 * The value the module reads must be exactly the one the JSON path gives
 * (JSON.stringify, then the module's JSON parser): a different input could
 * turn a deny into an allow. So this writer follows JSON.stringify's own
 * steps where they are simple (own enumerable string keys in order,
 * `undefined`/function/symbol members dropped, `null` for those in arrays
 * and for non-finite numbers) and gives up, answering -1, wherever they are
 * not: an object with a toJSON method (Date...), any object whose prototype
 * is not Object.prototype or null (class instances, boxed primitives, Map),
 * arrays with another prototype, BigInt, a top-level undefined, nesting
 * past the parser's limit (cycles end there too), a getter that throws,
 * an Object.prototype with enumerable properties (polluted).
 * The caller then uses the JSON path, which gives those inputs their
 * JSON.stringify meaning (or its error). A getter may therefore run twice;
 * decision inputs are plain data.
 */

/** The module export `(entrypoint, data, input_addr, input_len, heap) -> code or address` (emit/abi.ts emitBinaryEval). */
export const BINARY_EVAL_EXPORT = "portcullis_eval";

/** What `portcullis_eval` answers for the result sets of a boolean rule; any larger number is the address of the result set's JSON dump. */
export const RESULT_CODE = { empty: 0, false: 1, true: 2 } as const;

const TAG_NULL = 0;
const TAG_FALSE = 1;
const TAG_TRUE = 2;
const TAG_INT = 3;
const TAG_NUMBER = 4;
const TAG_STRING = 5;
const TAG_ARRAY = 6;
const TAG_OBJECT = 7;

/** The runtime's JSON parser rejects deeper nesting (json.ts MAX_DEPTH); past it the JSON path reports the error. */
const MAX_DEPTH = 2000;
/** Largest count a header holds (29 bits). */
const MAX_COUNT = 0x1fffffff;
/** Strings longer than this are written by Buffer#write (one native call) rather than unit by unit. */
const SHORT_STRING = 32;

/** Called with `.call` inside for-in, which V8 reduces to a check of the object's map. */
const hasOwnProperty = Object.prototype.hasOwnProperty;

/** Thrown inside the writer when the input needs the JSON path; never leaves it. */
const GIVE_UP = new Error("binary input encoding: use JSON");

export class BinaryInputWriter {
  private u8 = new Uint8Array(0);
  private u16 = new Uint16Array(0);
  private u32 = new Uint32Array(0);
  private i32 = new Int32Array(0);
  private buf = Buffer.alloc(0);
  private pos = 0;

  constructor(private readonly memory: WebAssembly.Memory) {}

  /**
   * Writes `input` at address `at` (a multiple of 4); returns its length in
   * bytes (a multiple of 4), or -1 when the input must go through JSON.
   * May grow the memory (a view on its old buffer then has length 0).
   */
  write(input: unknown, at: number): number {
    if ((at & 3) !== 0) throw new Error("binary input must start 4-byte aligned");
    this.pos = at;
    try {
      if (!this.value(input, 0)) return -1; // a top-level undefined: JSON.stringify gives no text
    } catch {
      // GIVE_UP, or anything the input's own code threw (a getter, a proxy trap) or the stack:
      // the JSON path meets the same input and reports what it does with it.
      return -1;
    }
    return this.pos - at;
  }

  /** Makes room for `bytes` more at pos, growing the memory if needed. */
  private room(bytes: number): void {
    const end = this.pos + bytes;
    if (end <= this.u8.length) return;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / 65536));
    const b = this.memory.buffer;
    this.u8 = new Uint8Array(b);
    this.u16 = new Uint16Array(b);
    this.u32 = new Uint32Array(b);
    this.i32 = new Int32Array(b);
    this.buf = Buffer.from(b);
  }

  private header(n: number, tag: number): void {
    this.u32[this.pos >> 2] = n * 8 + tag;
    this.pos += 4;
  }

  /** Writes v; false (nothing written) for what JSON.stringify leaves out: undefined, functions, symbols. */
  private value(v: unknown, depth: number): boolean {
    switch (typeof v) {
      case "string":
        this.string(v);
        return true;
      case "number":
        this.number(v);
        return true;
      case "boolean":
        this.room(4);
        this.header(0, v ? TAG_TRUE : TAG_FALSE);
        return true;
      case "object":
        if (v === null) {
          this.room(4);
          this.header(0, TAG_NULL);
          return true;
        }
        this.collection(v, depth);
        return true;
      case "undefined":
      case "function":
      case "symbol":
        return false;
      default:
        throw GIVE_UP; // bigint: JSON.stringify throws, or calls BigInt.prototype.toJSON
    }
  }

  private collection(v: object, depth: number): void {
    if (depth >= MAX_DEPTH) throw GIVE_UP;
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw GIVE_UP;
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto === Array.prototype && Array.isArray(v)) {
      const n = v.length;
      if (n > MAX_COUNT) throw GIVE_UP;
      this.room(4);
      this.header(n, TAG_ARRAY);
      for (let i = 0; i < n; i++) {
        if (!this.value(v[i], depth + 1)) {
          this.room(4);
          this.header(0, TAG_NULL); // as JSON.stringify writes undefined members of an array
        }
      }
      return;
    }
    if (proto !== Object.prototype && proto !== null) throw GIVE_UP;
    this.room(4);
    const at = this.pos;
    this.pos += 4;
    let n = 0;
    // for-in, not Object.keys: no keys array per object, and V8 reads each
    // value through the object's enum cache rather than a lookup by name
    // (the writer 1.12-1.18x faster on the API's input). It visits what
    // JSON.stringify does: the own enumerable string keys in Object.keys's
    // order (integer keys ascending, then creation order), taken when the
    // loop starts (a key a getter adds is not visited; one it deletes is
    // skipped, where JSON.stringify reads undefined and leaves it out). Then
    // the prototype's enumerable keys: Object.prototype has none unless
    // something polluted it, and then the input goes to the JSON path, as it
    // does when a getter deleted an own key the prototype also has.
    for (const key in v) {
      if (!hasOwnProperty.call(v, key)) throw GIVE_UP;
      const start = this.pos;
      this.string(key);
      if (this.value((v as Record<string, unknown>)[key], depth + 1)) n++;
      else this.pos = start; // a member JSON.stringify leaves out
    }
    if (n > MAX_COUNT) throw GIVE_UP;
    this.u32[at >> 2] = n * 8 + TAG_OBJECT;
  }

  private string(s: string): void {
    const n = s.length;
    const bytes = (2 * n + 3) & ~3;
    this.room(4 + bytes);
    this.header(n, TAG_STRING);
    if (n > SHORT_STRING) {
      // UTF-16LE units exactly as the string holds them (lone surrogates included: the module replaces those).
      this.buf.write(s, this.pos, 2 * n, "utf16le");
    } else {
      const u16 = this.u16;
      const p = this.pos >> 1;
      for (let i = 0; i < n; i++) u16[p + i] = s.charCodeAt(i);
    }
    this.pos += bytes;
  }

  private number(v: number): void {
    if ((v | 0) === v) {
      // An i32 (-0 included: JSON.stringify writes it as 0, and v | 0 is 0).
      this.room(8);
      this.header(0, TAG_INT);
      this.i32[this.pos >> 2] = v | 0;
      this.pos += 4;
      return;
    }
    if (!Number.isFinite(v)) {
      this.room(4);
      this.header(0, TAG_NULL); // JSON.stringify writes NaN and the infinities as null
      return;
    }
    // The text JSON.stringify writes (Number::toString), parsed by the module's JSON number parser.
    const text = String(v);
    const n = text.length;
    const bytes = (n + 3) & ~3;
    this.room(4 + bytes);
    this.header(n, TAG_NUMBER);
    const u8 = this.u8;
    for (let i = 0; i < n; i++) u8[this.pos + i] = text.charCodeAt(i);
    this.pos += bytes;
  }
}

/**
 * The JSON text of the value a binary input holds: JSON.stringify's text of
 * the host value BinaryInputWriter wrote it from. Members come in the order
 * written (JSON.stringify's), integers and number texts as Number::toString
 * writes them, strings escaped as JSON.stringify escapes the very UTF-16
 * units written: lone surrogates as their \uXXXX escapes, which the
 * module's JSON parser reads as the U+FFFD the module read here.
 *
 * What it is for: a caller that evaluated on the binary path and still
 * needs the input's text (the decision log) makes it from a copy of the
 * bytes, later and elsewhere, instead of stringifying on the request path.
 * The text is of the bytes, not of the host object: a getter is not read a
 * second time. Throws on bytes that are not exactly one well-formed item
 * (as the module refuses them): a misread input must not be recorded as
 * something else.
 */
export function binaryInputJson(bytes: Uint8Array): string {
  if ((bytes.byteLength & 3) !== 0 || bytes.byteLength === 0) throw new Error(MALFORMED);
  return new BinaryInputText(bytes).text();
}

const MALFORMED = "malformed binary input encoding";

/** A JSON number's text, as the module's number parser takes it (and as Number::toString writes finite numbers). */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * What JSON.stringify writes for each unit below 0x80: 0 for the unit
 * itself, else its short escape's letter, or 1 for \u00XX.
 */
const ASCII_ESCAPE = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) ASCII_ESCAPE[c] = 1;
for (const [c, letter] of [
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0c, "f"],
  [0x0d, "r"],
  [0x22, '"'],
  [0x5c, "\\"],
] as const) {
  ASCII_ESCAPE[c] = letter.charCodeAt(0);
}
const HEX = "0123456789abcdef";

/**
 * Reads the items of binary input bytes and writes their JSON text as UTF-8
 * into one buffer, decoded once at the end: no string per item.
 */
class BinaryInputText {
  private at = 0;
  private out: Buffer;
  private o = 0;
  private readonly view: DataView;
  private readonly u8: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.u8 = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The most UTF-8 bytes a text can need: a string unit (2 bytes in) writes at most 6 bytes
    // (an escape), an item header (4 bytes) at most 12 (`false` and a separator; an integer's 8 bytes write <= 12).
    this.out = Buffer.allocUnsafe(3 * bytes.byteLength + 16);
  }

  text(): string {
    this.item(0);
    if (this.at !== this.u8.byteLength) throw new Error(MALFORMED);
    return this.out.toString("utf8", 0, this.o);
  }

  private header(): number {
    if (this.u8.byteLength - this.at < 4) throw new Error(MALFORMED);
    const h = this.view.getUint32(this.at, true);
    this.at += 4;
    return h;
  }

  /** The start of `n` bytes, the read position moved past them and their padding to 4. */
  private take(n: number): number {
    const padded = (n + 3) & ~3;
    if (padded > this.u8.byteLength - this.at) throw new Error(MALFORMED);
    const start = this.at;
    this.at += padded;
    return start;
  }

  private ascii(s: string): void {
    for (let i = 0; i < s.length; i++) this.out[this.o++] = s.charCodeAt(i);
  }

  private item(depth: number): void {
    if (depth > MAX_DEPTH) throw new Error(MALFORMED);
    const h = this.header();
    const n = h >>> 3;
    const tag = h & 7;
    if (tag <= TAG_TRUE || tag === TAG_INT) {
      if (n !== 0) throw new Error(MALFORMED);
      if (tag === TAG_INT) this.ascii(String(this.view.getInt32(this.take(4), true)));
      else this.ascii(tag === TAG_NULL ? "null" : tag === TAG_TRUE ? "true" : "false");
    } else if (tag === TAG_NUMBER) {
      const start = this.take(n);
      const text = Buffer.from(this.u8.buffer, this.u8.byteOffset + start, n).toString("latin1");
      if (!JSON_NUMBER.test(text)) throw new Error(MALFORMED);
      this.ascii(text);
    } else if (tag === TAG_STRING) {
      this.string(n);
    } else if (tag === TAG_ARRAY) {
      if (n > (this.u8.byteLength - this.at) >>> 2) throw new Error(MALFORMED);
      this.out[this.o++] = 0x5b; // [
      for (let i = 0; i < n; i++) {
        if (i > 0) this.out[this.o++] = 0x2c; // ,
        this.item(depth + 1);
      }
      this.out[this.o++] = 0x5d; // ]
    } else {
      if (n > (this.u8.byteLength - this.at) >>> 3) throw new Error(MALFORMED);
      this.out[this.o++] = 0x7b; // {
      for (let i = 0; i < n; i++) {
        if (i > 0) this.out[this.o++] = 0x2c; // ,
        const kh = this.header();
        if ((kh & 7) !== TAG_STRING) throw new Error(MALFORMED);
        this.string(kh >>> 3);
        this.out[this.o++] = 0x3a; // :
        this.item(depth + 1);
      }
      this.out[this.o++] = 0x7d; // }
    }
  }

  /** n UTF-16 units, quoted and escaped as JSON.stringify does (QuoteJSONString), as UTF-8. */
  private string(n: number): void {
    const start = this.take(2 * n);
    const end = start + 2 * n;
    const view = this.view;
    const out = this.out;
    out[this.o++] = 0x22;
    for (let p = start; p < end; p += 2) {
      const c = view.getUint16(p, true);
      if (c < 0x80) {
        const e = ASCII_ESCAPE[c];
        if (e === 0) out[this.o++] = c;
        else if (e === 1) this.escape(c);
        else {
          out[this.o++] = 0x5c;
          out[this.o++] = e;
        }
      } else if (c < 0x800) {
        out[this.o++] = 0xc0 | (c >> 6);
        out[this.o++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c >= 0xe000) {
        out[this.o++] = 0xe0 | (c >> 12);
        out[this.o++] = 0x80 | ((c >> 6) & 0x3f);
        out[this.o++] = 0x80 | (c & 0x3f);
      } else {
        const d = c < 0xdc00 && p + 2 < end ? view.getUint16(p + 2, true) : 0;
        if (d >= 0xdc00 && d < 0xe000) {
          // A pair: the code point, in four bytes.
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          out[this.o++] = 0xf0 | (cp >> 18);
          out[this.o++] = 0x80 | ((cp >> 12) & 0x3f);
          out[this.o++] = 0x80 | ((cp >> 6) & 0x3f);
          out[this.o++] = 0x80 | (cp & 0x3f);
          p += 2;
        } else {
          this.escape(c); // a lone surrogate
        }
      }
    }
    out[this.o++] = 0x22;
  }

  /** `\uXXXX`, lowercase hex, as JSON.stringify writes a control character or a lone surrogate. */
  private escape(c: number): void {
    this.ascii("\\u");
    for (let shift = 12; shift >= 0; shift -= 4) this.out[this.o++] = HEX.charCodeAt((c >> shift) & 15);
  }
}
