/**
 * Parsing JSON and Rego value literals from UTF-8 bytes into values.
 *
 * The parser reads the host's bytes in place (no UTF-16 copy of the whole
 * text): input arrives on every evaluation, so this is the hot path.
 * Rego mode (`opa_value_parse`, input of `opa_eval`) accepts, beyond JSON:
 * sets `{1, 2}` and `set()`, object keys of any type `{1: "a"}`, raw
 * strings in backquotes, and trailing commas.
 *
 * Strings follow Go's decoder: invalid UTF-8 bytes and unpaired surrogate
 * escapes become U+FFFD. A duplicate object key keeps the last value.
 * Serialisation lives in `write.ts`; this module re-exports its API so the
 * promised names (`parseJson`, `parseRegoValue`, `toJson`, `toRegoText`)
 * are all importable from here.
 */

import { Value, NULL, TRUE, FALSE, StrV, ArrV, NumV, ObjV, objectFromPairSlots, setFromItems, SetV, valueArrayFrom, valueArrayWithCapacity, markIfCanonicalKeys } from "./value";
import { scanNumber, numberFromBytes } from "./number";
import { internedAscii, internDataString, loadingData } from "./intern";

export { toJson, toRegoText, dumpJson, dumpRegoText } from "./write";

/** Deeper nesting is rejected rather than risking a Wasm stack overflow. */
export const MAX_DEPTH: i32 = 2000;

/** Parses JSON text; null when it is not exactly one valid JSON value. */
export function parseJson(s: string): Value | null {
  const b = String.UTF8.encode(s);
  return parseBytes(changetype<usize>(b), <usize>b.byteLength, false);
}

/** Parses a Rego value literal (JSON plus sets and non-string keys); null when invalid. */
export function parseRegoValue(s: string): Value | null {
  const b = String.UTF8.encode(s);
  return parseBytes(changetype<usize>(b), <usize>b.byteLength, true);
}

/** Decodes UTF-8 bytes (no escapes) into a string; invalid bytes become U+FFFD. */
export function stringFromUtf8(ptr: usize, len: usize): string {
  return changetype<string>(decodeString(ptr, ptr + len, false));
}

/**
 * Parses a JSON document a host hands over (opa_json_parse): while data is
 * being loaded (intern.ts loadingData), its short ASCII strings become
 * canonical and its objects whose keys all are are marked so.
 */
export function parseHostJson(ptr: usize, len: usize): Value | null {
  return parseBytes(ptr, len, false, loadingData());
}

/** Parses len UTF-8 bytes at ptr as JSON (rego = false) or a Rego literal. */
export function parseBytes(ptr: usize, len: usize, rego: bool, interning: bool = false): Value | null {
  const p = new Parser(ptr, ptr + len, rego, interning);
  const v = p.value(0);
  if (v === null) return null;
  p.skipSpace();
  return p.pos == p.end ? v : null;
}

/** Slots the parse stack starts with: room for a typical input without growing. */
const STACK_SLOTS: i32 = 64;

class Parser {
  /**
   * The elements (for objects: key, value, key, value...) of the
   * collections being parsed, innermost last. A collection's own elements
   * are copied out into arrays of exactly their size when it closes: no
   * array per collection growing push by push (each growth a copy, and
   * AssemblyScript's Array constructor fills its 8 spare slots with a
   * memory.fill, which V8 runs as a call out of Wasm).
   */
  private stack: usize;
  private slots: i32 = STACK_SLOTS;
  private top: i32 = 0;

  constructor(
    public pos: usize,
    public end: usize,
    public rego: bool,
    /** Loading data: strings are entered in the intern table and objects marked (parseHostJson). */
    public interning: bool,
  ) {
    this.stack = __alloc(<usize>STACK_SLOTS << alignof<usize>());
  }

  private push(v: Value): void {
    if (this.top == this.slots) {
      this.slots <<= 1;
      this.stack = __realloc(this.stack, <usize>this.slots << alignof<usize>());
    }
    store<usize>(this.stack + (<usize>this.top << alignof<usize>()), changetype<usize>(v));
    this.top++;
  }

  /** Elements base, base + step, ... below the top, as an array of exactly that many. */
  private take(base: i32, first: i32, step: i32): Array<Value> {
    const n = (this.top - base) / step;
    const from = this.stack + (<usize>(base + first) << alignof<usize>());
    return valueArrayFrom(from, n, <usize>step << alignof<usize>());
  }

  skipSpace(): void {
    let p = this.pos;
    const end = this.end;
    while (p < end) {
      const c = load<u8>(p);
      if (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  /** Consumes byte c (after whitespace) if it is next. */
  eat(c: u8): bool {
    this.skipSpace();
    if (this.pos < this.end && load<u8>(this.pos) == c) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** Consumes the 4 bytes of `word` (little-endian u32) if they are next. */
  word4(word: u32): bool {
    if (this.pos + 4 > this.end || load<u32>(this.pos) != word) return false;
    this.pos += 4;
    return true;
  }

  value(depth: i32): Value | null {
    if (depth > MAX_DEPTH) return null;
    this.skipSpace();
    if (this.pos >= this.end) return null;
    const c = load<u8>(this.pos);
    switch (c) {
      case 0x7b: // {
        this.pos++;
        return this.braces(depth + 1);
      case 0x5b: // [
        this.pos++;
        return this.array(depth + 1);
      case 0x22: { // "
        this.pos++;
        return this.stringValue();
      }
      case 0x60: { // `
        if (!this.rego) return null;
        this.pos++;
        const s = this.rawString();
        return s === null ? null : new StrV(s);
      }
      case 0x74: return this.word4(0x65757274) ? TRUE : null; // "true"
      case 0x66: // "false"
        if (this.pos + 5 > this.end || load<u8>(this.pos + 4) != 0x65) return null;
        this.pos++;
        return this.word4(0x65736c61) ? FALSE : null; // "alse"
      case 0x6e: return this.word4(0x6c6c756e) ? NULL : null; // "null"
      case 0x73: // set()
        if (this.rego && this.word4(0x28746573) && this.eat(0x29)) return new SetV(); // "set("
        return null;
    }
    return this.number();
  }

  number(): NumV | null {
    const start = this.pos;
    const stop = scanNumber(start, this.end);
    if (stop == 0) return null;
    this.pos = stop;
    return numberFromBytes(start, stop - start);
  }

  array(depth: i32): ArrV | null {
    const base = this.top;
    if (!this.eat(0x5d)) {
      while (true) {
        const v = this.value(depth);
        if (v === null) return null;
        this.push(v);
        if (this.eat(0x2c)) {
          if (this.rego && this.eat(0x5d)) break; // trailing comma
          continue;
        }
        if (this.eat(0x5d)) break;
        return null;
      }
    }
    const items = this.take(base, 0, 1);
    this.top = base;
    return new ArrV(items);
  }

  /** After `{`: an object, or in Rego mode a set when the first element has no `:`. */
  braces(depth: i32): Value | null {
    if (this.eat(0x7d)) {
      const empty = new ObjV(valueArrayWithCapacity(0), valueArrayWithCapacity(0));
      if (this.interning) markIfCanonicalKeys(empty, empty.keys);
      return empty;
    }
    const first = this.value(depth);
    if (first === null) return null;
    if (!this.eat(0x3a)) {
      return this.rego ? this.setRest(first, depth) : null;
    }
    if (!this.rego && first.kind != 4) return null; // JSON keys are strings
    const base = this.top;
    let key: Value = first;
    while (true) {
      const v = this.value(depth);
      if (v === null) return null;
      this.push(key);
      this.push(v);
      if (this.eat(0x2c)) {
        if (this.rego && this.eat(0x7d)) break;
        this.skipSpace();
        if (!this.rego && (this.pos >= this.end || load<u8>(this.pos) != 0x22)) return null;
        const k = this.value(depth);
        if (k === null || !this.eat(0x3a)) return null;
        key = k;
        continue;
      }
      if (this.eat(0x7d)) break;
      return null;
    }
    const obj = objectFromPairSlots(this.stack + (<usize>base << alignof<usize>()), (this.top - base) >> 1);
    this.top = base;
    if (this.interning) markIfCanonicalKeys(obj, obj.keys);
    return obj;
  }

  setRest(first: Value, depth: i32): SetV | null {
    const items = new Array<Value>();
    items.push(first);
    while (true) {
      if (this.eat(0x7d)) break;
      if (!this.eat(0x2c)) return null;
      if (this.eat(0x7d)) break; // trailing comma
      const v = this.value(depth);
      if (v === null) return null;
      items.push(v);
    }
    return setFromItems(items);
  }

  /**
   * After the opening quote: decodes up to and past the closing quote. A
   * plain ASCII string that is one of the policy's constants is that
   * constant (intern.ts): nothing is allocated for it.
   */
  stringValue(): StrV | null {
    const start = this.pos;
    const end = this.end;
    let p = start;
    let escapes = false;
    let ascii = true;
    while (true) {
      if (p + 8 <= end) {
        // Eight bytes at a time while none is special: a quote, a backslash,
        // a control character or a non-ASCII byte. The lowest byte flagged
        // is always a special one (the tests below may also flag a byte
        // above a special one, never one below), so it is the next to read.
        const x = load<u64>(p);
        const q = x ^ 0x2222222222222222;
        const b = x ^ 0x5c5c5c5c5c5c5c5c;
        const special = (((q - 0x0101010101010101) & ~q) | ((b - 0x0101010101010101) & ~b) | ((x - 0x2020202020202020) & ~x) | x) & 0x8080808080808080;
        if (special == 0) {
          p += 8;
          continue;
        }
        p += <usize>(ctz(special) >> 3);
      } else if (p >= end) return null;
      const c = load<u8>(p);
      if (c == 0x22) break;
      if (c < 0x20) return null; // raw control characters are not allowed
      if (c == 0x5c) {
        escapes = true;
        p += 2;
      } else {
        if (c >= 0x80) ascii = false;
        p++;
      }
    }
    if (p > end) return null;
    this.pos = p + 1;
    if (ascii && !escapes) {
      const constant = internedAscii(start, <i32>(p - start));
      if (constant !== null) return constant;
      // The length is known: widen the bytes straight into a string of that size.
      const v = new StrV(widenAscii(start, p));
      if (this.interning) internDataString(v);
      return v;
    }
    const s = decodeString(start, p, escapes);
    return s === null ? null : new StrV(s);
  }

  /** After the opening backquote: raw bytes up to the closing one. */
  rawString(): string | null {
    const start = this.pos;
    let p = start;
    while (p < this.end && load<u8>(p) != 0x60) p++;
    if (p >= this.end) return null;
    this.pos = p + 1;
    return decodeString(start, p, false);
  }
}

/** ASCII bytes [start, end) as a string: each byte becomes one UTF-16 unit. */
function widenAscii(start: usize, end: usize): string {
  const out = __rt_new_uninit((end - start) << 1, idof<string>()); // every unit is written below
  let o = out;
  let p = start;
  // Four bytes per step: spread 4 x u8 into 4 x u16 lanes.
  for (; p + 4 <= end; p += 4, o += 8) {
    const x = <u64>load<u32>(p);
    store<u64>(o, (x & 0xff) | ((x & 0xff00) << 8) | ((x & 0xff0000) << 16) | ((x & 0xff000000) << 24));
  }
  for (; p < end; p++, o += 2) store<u16>(o, load<u8>(p));
  return changetype<string>(out);
}

/**
 * Decodes UTF-8 bytes [start, end) (with JSON escapes when `escapes`) into an
 * AssemblyScript string, null on a bad escape. A string never has more
 * UTF-16 units than its source has bytes, so one allocation, shrunk after.
 */
function decodeString(start: usize, end: usize, escapes: bool): string | null {
  const cap = end - start;
  // Not zeroed: the units are written below and the rest is cut off by __renew.
  const out = __rt_new_uninit(cap << 1, idof<string>());
  let o = out;
  let p = start;
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c < 0x80) {
      if (c == 0x5c && escapes) {
        const e = <u32>load<u8>(p + 1);
        p += 2;
        let u: u32 = 0;
        switch (e) {
          case 0x22: u = 0x22; break;
          case 0x5c: u = 0x5c; break;
          case 0x2f: u = 0x2f; break;
          case 0x62: u = 0x08; break;
          case 0x66: u = 0x0c; break;
          case 0x6e: u = 0x0a; break;
          case 0x72: u = 0x0d; break;
          case 0x74: u = 0x09; break;
          case 0x75: {
            const hi = hex4(p, end);
            if (hi < 0) return null;
            p += 4;
            u = <u32>hi;
            if (u >= 0xd800 && u < 0xdc00) {
              // A high surrogate needs a following \uDC00-\uDFFF escape.
              const lo = p + 6 <= end && load<u8>(p) == 0x5c && load<u8>(p + 1) == 0x75 ? hex4(p + 2, end) : -1;
              if (lo >= 0xdc00 && lo < 0xe000) {
                store<u16>(o, <u16>u);
                o += 2;
                u = <u32>lo;
                p += 6;
              } else u = 0xfffd;
            } else if (u >= 0xdc00 && u < 0xe000) u = 0xfffd;
            break;
          }
          default:
            return null;
        }
        store<u16>(o, <u16>u);
        o += 2;
        continue;
      }
      store<u16>(o, <u16>c);
      o += 2;
      p++;
      continue;
    }
    const cp = decodeUtf8(p, end);
    p += <usize>(cp >>> 24);
    const r = cp & 0x1fffff;
    if (r >= 0x10000) {
      const x = r - 0x10000;
      store<u16>(o, <u16>(0xd800 | (x >>> 10)));
      store<u16>(o + 2, <u16>(0xdc00 | (x & 0x3ff)));
      o += 4;
    } else {
      store<u16>(o, <u16>r);
      o += 2;
    }
  }
  return changetype<string>(__renew(out, o - out));
}

/** Four hex digits at p as a number, -1 if not hex. */
function hex4(p: usize, end: usize): i32 {
  if (p + 4 > end) return -1;
  let v: i32 = 0;
  for (let i: usize = 0; i < 4; i++) {
    const c = <i32>load<u8>(p + i);
    let d: i32;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) d = (c | 0x20) - 0x61 + 10;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

/**
 * Decodes one non-ASCII UTF-8 sequence at p: (bytes consumed << 24) | code
 * point. Invalid or truncated sequences consume one byte and yield U+FFFD.
 */
function decodeUtf8(p: usize, end: usize): u32 {
  const c = <u32>load<u8>(p);
  const bad: u32 = (1 << 24) | 0xfffd;
  let n: u32;
  let cp: u32;
  let lo: u32 = 0x80;
  let hi: u32 = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
    if (c == 0xe0) lo = 0xa0; // no overlong forms
    else if (c == 0xed) hi = 0x9f; // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
    if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f; // <= U+10FFFF
  } else return bad;
  if (p + n > end) return bad;
  for (let i: u32 = 1; i < n; i++) {
    const b = <u32>load<u8>(p + i);
    if (b < lo || b > hi) return bad;
    lo = 0x80;
    hi = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
  }
  return (n << 24) | cp;
}
