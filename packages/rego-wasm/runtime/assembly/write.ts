/**
 * Serialising values as JSON (`opa_json_dump`) or Rego literal text
 * (`opa_value_dump`), straight into a UTF-8 byte buffer on the heap.
 *
 * Why bytes and not an AssemblyScript string: the host wants NUL-terminated
 * UTF-8, and the result of every evaluation is dumped, so we skip the UTF-16
 * detour. `toJson`/`toRegoText` decode the bytes for callers in Wasm.
 *
 * JSON: compact (`[1,2]`, `{"a":1}`), sets as arrays, non-string object keys
 * as their JSON text (key 1 -> "1"), keys in byte order of that text as Go's
 * encoding/json does. Rego: Go's ast formatting (`[1, 2]`, `{"a": 1}`,
 * `{1, 2}`, `set()`). Strings escape `"`, `\` and control characters only.
 */

import { Value, NumV, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET, asBool, asNum, asStr, asArr, asObj, asSet, compareStrings, ObjV } from "./value";
import { formatNumber, fractionDigits, POW10 } from "./number";

class Writer {
  buf: usize;
  len: usize = 0;
  cap: usize;

  constructor(cap: usize) {
    this.cap = cap;
    this.buf = __alloc(cap);
  }

  /**
   * Room for n more bytes. Inlined (the check), the growth out of line: a
   * result's dump calls this for every punctuation byte and string; inlining
   * it and byte() took the decision's dump from 1.32 to 0.97 us.
   */
  // @ts-ignore: decorator
  @inline ensure(n: usize): void {
    const need = this.len + n;
    if (need > this.cap) this.grow(need);
  }

  grow(need: usize): void {
    let cap = this.cap << 1;
    if (cap < need) cap = need;
    this.buf = __realloc(this.buf, cap);
    this.cap = cap;
  }

  // @ts-ignore: decorator
  @inline byte(b: u32): void {
    this.ensure(1);
    store<u8>(this.buf + this.len, <u8>b);
    this.len++;
  }

  /** Writes a string known to be ASCII (numbers, punctuation). */
  ascii(s: string): void {
    const n = <usize>s.length;
    this.ensure(n);
    const src = changetype<usize>(s);
    const dst = this.buf + this.len;
    for (let i: usize = 0; i < n; i++) store<u8>(dst + i, <u8>load<u16>(src + (i << 1)));
    this.len += n;
  }

  /** Writes a number; small integers (the common case) without a temporary string. */
  number(n: NumV): void {
    const v = n.value;
    if (n.text === null) {
      if (v == Math.floor(v) && Math.abs(v) < 1e15) {
        if (v < 0) this.byte(0x2d);
        this.digits(<u64>Math.abs(v), 1);
        return;
      }
      const k = fractionDigits(v);
      // 10^k must be an exact u64 (k <= 19); longer fractions take formatNumber.
      if (k > 0 && k <= 19) {
        // v is n / 10^k: integer part, point, k fraction digits
        const scale = <u64>unchecked(POW10[k]);
        const x = <u64>Math.round(Math.abs(v) * <f64>scale);
        if (v < 0) this.byte(0x2d);
        this.digits(x / scale, 1);
        this.byte(0x2e);
        this.digits(x % scale, k);
        return;
      }
    }
    this.ascii(formatNumber(n));
  }

  /** Writes x in decimal, zero-padded to at least `width` digits. */
  digits(x: u64, width: i32): void {
    let count = 1;
    for (let t = x; t >= 10; t /= 10) count++;
    if (count < width) count = width;
    this.ensure(<usize>count);
    let o = this.buf + this.len + <usize>count;
    this.len += <usize>count;
    for (let i = 0; i < count; i++) {
      store<u8>(--o, <u8>(0x30 + <u32>(x % 10)));
      x /= 10;
    }
  }

  /** Writes s as a quoted, escaped JSON string in UTF-8. Lone surrogates become U+FFFD. */
  quoted(s: string): void {
    const n = <usize>s.length;
    // UTF-8 needs at most 3 bytes per UTF-16 unit; escapes reserve more themselves.
    this.ensure(n * 3 + 2);
    const src = changetype<usize>(s);
    let o = this.buf + this.len;
    store<u8>(o++, 0x22);
    let i: usize = 0;
    // Four units at a time while they are ASCII with nothing to escape (keys, ids, field names: nearly
    // every string of a result); from the first group that is not, one unit at a time.
    for (; i + 4 <= n; i += 4) {
      const x = load<u64>(src + (i << 1));
      if (!plainAscii4(x)) break;
      store<u32>(o, narrow4(x));
      o += 4;
    }
    for (; i < n; i++) {
      let c = <u32>load<u16>(src + (i << 1));
      if (c < 0x80) {
        if (c >= 0x20 && c != 0x22 && c != 0x5c) {
          store<u8>(o++, <u8>c);
          continue;
        }
        this.len = o - this.buf;
        this.ensure((n - i) * 3 + 8);
        if (c < 0x20) this.control(c);
        else {
          this.byte(0x5c);
          this.byte(c);
        }
        o = this.buf + this.len;
        continue;
      }
      if (c >= 0xd800 && c < 0xe000) {
        const next = i + 1 < n ? <u32>load<u16>(src + ((i + 1) << 1)) : 0;
        if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
        } else c = 0xfffd;
      }
      if (c < 0x800) {
        store<u8>(o++, <u8>(0xc0 | (c >>> 6)));
      } else if (c < 0x10000) {
        store<u8>(o++, <u8>(0xe0 | (c >>> 12)));
        store<u8>(o++, <u8>(0x80 | ((c >>> 6) & 0x3f)));
      } else {
        store<u8>(o++, <u8>(0xf0 | (c >>> 18)));
        store<u8>(o++, <u8>(0x80 | ((c >>> 12) & 0x3f)));
        store<u8>(o++, <u8>(0x80 | ((c >>> 6) & 0x3f)));
      }
      store<u8>(o++, <u8>(0x80 | (c & 0x3f)));
    }
    store<u8>(o++, 0x22);
    this.len = o - this.buf;
  }

  control(c: u32): void {
    this.byte(0x5c);
    switch (c) {
      case 0x08: this.byte(0x62); return;
      case 0x0c: this.byte(0x66); return;
      case 0x0a: this.byte(0x6e); return;
      case 0x0d: this.byte(0x72); return;
      case 0x09: this.byte(0x74); return;
    }
    this.ascii("u00");
    this.byte(hexDigit(c >>> 4));
    this.byte(hexDigit(c & 15));
  }

  /** The bytes written so far, decoded. */
  toString(): string {
    return String.UTF8.decodeUnsafe(this.buf, this.len);
  }

  /** NUL-terminates the buffer and returns its address. */
  finish(): usize {
    this.byte(0);
    return this.buf;
  }
}

/**
 * Whether the four UTF-16 units in x are all ASCII and none is escaped in
 * JSON (a control character, `"` or `\`). Once every unit is known to be
 * below 0x80, adding to a 16-bit lane never carries into the next one, so
 * each test is exact per unit: bit 7 of (u + 0x60) is clear exactly when
 * u < 0x20, and bit 7 of ((u ^ c) + 0x7f) is clear exactly when u == c.
 */
// @ts-ignore: decorator
@inline function plainAscii4(x: u64): bool {
  if ((x & 0xff80ff80ff80ff80) != 0) return false;
  const control = ~(x + 0x0060006000600060);
  const quote = ~((x ^ 0x0022002200220022) + 0x007f007f007f007f);
  const backslash = ~((x ^ 0x005c005c005c005c) + 0x007f007f007f007f);
  return ((control | quote | backslash) & 0x0080008000800080) == 0;
}

/** The low bytes of the four 16-bit units in x, as four bytes in memory order. */
// @ts-ignore: decorator
@inline function narrow4(x: u64): u32 {
  return <u32>((x & 0xff) | ((x >> 8) & 0xff00) | ((x >> 16) & 0xff0000) | ((x >> 24) & 0xff000000));
}

// @ts-ignore: decorator
@inline function hexDigit(d: u32): u32 {
  return d < 10 ? 0x30 + d : 0x61 + d - 10;
}

function writeJson(w: Writer, v: Value): void {
  switch (v.kind) {
    case T_NULL: w.ascii("null"); return;
    case T_BOOLEAN: w.ascii(asBool(v).value ? "true" : "false"); return;
    case T_NUMBER: w.number(asNum(v)); return;
    case T_STRING: w.quoted(asStr(v).value); return;
    case T_ARRAY: writeJsonList(w, asArr(v).items); return;
    case T_SET: writeJsonList(w, asSet(v).items); return;
    case T_OBJECT: writeJsonObject(w, asObj(v)); return;
  }
}

function writeJsonList(w: Writer, items: Array<Value>): void {
  w.byte(0x5b);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) w.byte(0x2c);
    writeJson(w, unchecked(items[i]));
  }
  w.byte(0x5d);
}

function writeJsonObject(w: Writer, o: ObjV): void {
  const n = o.keys.length;
  w.byte(0x7b);
  // Keys are sorted by type first, so all-string keys is a check at both ends.
  if (n == 0 || (unchecked(o.keys[0]).kind == T_STRING && unchecked(o.keys[n - 1]).kind == T_STRING)) {
    for (let i = 0; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      w.quoted(asStr(unchecked(o.keys[i])).value);
      w.byte(0x3a);
      writeJson(w, unchecked(o.vals[i]));
    }
  } else {
    // Non-string keys become their JSON text; order (and collisions, last
    // one wins) then follow that text, as in Go's map[string] marshalling.
    const texts = new Array<string>(n);
    const order = new Array<i32>(n);
    for (let i = 0; i < n; i++) {
      const k = unchecked(o.keys[i]);
      unchecked((texts[i] = k.kind == T_STRING ? asStr(k).value : toJson(k)));
      // insertion sort: objects with non-string keys are rare and small
      let j = i;
      while (j > 0 && compareStrings(unchecked(texts[unchecked(order[j - 1])]), unchecked(texts[i])) > 0) {
        unchecked((order[j] = order[j - 1]));
        j--;
      }
      unchecked((order[j] = i));
    }
    let first = true;
    for (let i = 0; i < n; i++) {
      const at = unchecked(order[i]);
      if (i + 1 < n && unchecked(texts[unchecked(order[i + 1])]) == unchecked(texts[at])) continue;
      if (!first) w.byte(0x2c);
      first = false;
      w.quoted(unchecked(texts[at]));
      w.byte(0x3a);
      writeJson(w, unchecked(o.vals[at]));
    }
  }
  w.byte(0x7d);
}

function writeRego(w: Writer, v: Value): void {
  switch (v.kind) {
    case T_ARRAY: {
      w.byte(0x5b);
      writeRegoItems(w, asArr(v).items);
      w.byte(0x5d);
      return;
    }
    case T_SET: {
      const items = asSet(v).items;
      if (items.length == 0) {
        w.ascii("set()");
        return;
      }
      w.byte(0x7b);
      writeRegoItems(w, items);
      w.byte(0x7d);
      return;
    }
    case T_OBJECT: {
      const o = asObj(v);
      w.byte(0x7b);
      for (let i = 0; i < o.keys.length; i++) {
        if (i > 0) w.ascii(", ");
        writeRego(w, unchecked(o.keys[i]));
        w.ascii(": ");
        writeRego(w, unchecked(o.vals[i]));
      }
      w.byte(0x7d);
      return;
    }
  }
  writeJson(w, v); // scalars are written the same way
}

function writeRegoItems(w: Writer, items: Array<Value>): void {
  for (let i = 0; i < items.length; i++) {
    if (i > 0) w.ascii(", ");
    writeRego(w, unchecked(items[i]));
  }
}

/** JSON text of v (sets as arrays, non-string keys as their JSON text). */
export function toJson(v: Value): string {
  const w = new Writer(64);
  writeJson(w, v);
  return w.toString();
}

/** Rego literal text of v. */
export function toRegoText(v: Value): string {
  const w = new Writer(64);
  writeRego(w, v);
  return w.toString();
}

/** Address of v's JSON text as NUL-terminated UTF-8. */
export function dumpJson(v: Value): usize {
  const w = new Writer(256);
  writeJson(w, v);
  return w.finish();
}

/** Address of v's Rego literal text as NUL-terminated UTF-8. */
export function dumpRegoText(v: Value): usize {
  const w = new Writer(256);
  writeRego(w, v);
  return w.finish();
}
