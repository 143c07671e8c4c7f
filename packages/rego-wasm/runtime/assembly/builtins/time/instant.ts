/**
 * Instants, the analogue of Go's `time.Time` for the time builtins: unix
 * seconds (i64) + nanoseconds + zone, converted to and from Rego numbers of
 * nanoseconds and split into wall-clock fields.
 *
 * Precision: Rego timestamps are i64 nanoseconds and exceed 2^53, which an
 * f64 cannot hold. An incoming number is read from its exact literal text
 * when it has one, else from the f64 (exact when integral); an outgoing one
 * carries its decimal text whenever it is beyond 2^53, so it prints exactly.
 */

import { ArrV, NumV, StrV, Value, T_ARRAY, T_NUMBER, T_STRING } from "../../value";
import { Civil, NS_PER_SEC, SECS_PER_DAY, civilFromDays, daysFromCivil, floorDiv, floorMod, weekdayOfDays } from "./civil";
import { UTC, Zone, loadZone } from "./zone";

export class Time {
  constructor(public sec: i64, public nsec: i32, public zone: Zone) {}
}

export function timeFromUnixNano(ns: i64, zone: Zone): Time {
  return new Time(floorDiv(ns, NS_PER_SEC), <i32>floorMod(ns, NS_PER_SEC), zone);
}

// ------------------------------------------------------------ Rego numbers <-> i64

/** Result of reading a number as an i64: `ok` false when it is fractional or outside i64. */
export class Int64 {
  constructor(public ok: bool, public value: i64) {}
}

const MAX_EXACT: i64 = 9007199254740992; // 2^53: every integer up to it is exact in f64
const TWO_63: f64 = 9223372036854775808.0;

/** The exact integer value of a number, as OPA's `big.Float.Int64` with an exactness check. */
export function exactInt64(n: NumV): Int64 {
  const text = n.text;
  if (text !== null) return parseIntegerText(text);
  const f = n.value;
  if (f != Math.floor(f) || f < -TWO_63 || f >= TWO_63) return new Int64(false, 0);
  return new Int64(true, <i64>f);
}

/**
 * A JSON number literal as an exact i64: digits shifted by the exponent must
 * leave no non-zero fraction, and the magnitude must fit (2^63 for negatives).
 */
function parseIntegerText(s: string): Int64 {
  const bad = new Int64(false, 0);
  let i = 0;
  const neg = s.length > 0 && s.charCodeAt(0) == 0x2d;
  if (neg) i++;
  let digits = "";
  let point = -1;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits += String.fromCharCode(c);
    else if (c == 0x2e && point < 0) point = digits.length;
    else break;
  }
  if (point < 0) point = digits.length;
  if (i < s.length) {
    const c = s.charCodeAt(i);
    if (c != 0x65 && c != 0x45) return bad;
    const exp = I32.parseInt(s.substring(i + 1)); // "+7", "-3", "12"
    if (exp > 1000 || exp < -1000) return exp < 0 && isAllZeros(digits, 0) ? new Int64(true, 0) : bad;
    point += exp;
  }
  if (!isAllZeros(digits, max(point, 0))) return bad;
  let mag: u64 = 0;
  for (let k = 0; k < point; k++) {
    const d = <u64>(k < digits.length ? digits.charCodeAt(k) - 0x30 : 0);
    if (mag > (<u64>9223372036854775808 - d) / 10) return bad;
    mag = mag * 10 + d;
  }
  if (mag > <u64>9223372036854775807 && !(neg && mag == <u64>9223372036854775808)) return bad;
  return new Int64(true, neg ? -(<i64>mag) : <i64>mag);
}

function isAllZeros(s: string, from: i32): bool {
  for (let i = from; i < s.length; i++) if (s.charCodeAt(i) != 0x30) return false;
  return true;
}

/** A number value for an i64, with exact text when the f64 cannot hold it. */
export function int64Value(i: i64): NumV {
  // Compare the integer, not its rounded f64: 2^53 + 1 rounds to 2^53.
  if (i > MAX_EXACT || i < -MAX_EXACT) return new NumV(<f64>i, i.toString());
  return new NumV(<f64>i);
}

/**
 * `t` as nanoseconds since the epoch, or null when outside the i64 range
 * (1677-09-21T00:12:43.145224192Z .. 2262-04-11T23:47:16.854775807Z): OPA's
 * "time outside of valid range".
 */
export function unixNanoValue(t: Time): NumV | null {
  const s = t.sec;
  const n = <i64>t.nsec;
  if (s > 9223372036 || (s == 9223372036 && n > 854775807)) return null;
  if (s < -9223372037 || (s == -9223372037 && n < 145224192)) return null;
  // (s + 1) * 1e9 cannot overflow where s * 1e9 would, at the lower edge.
  return int64Value(s < 0 ? (s + 1) * NS_PER_SEC + (n - NS_PER_SEC) : s * NS_PER_SEC + n);
}

// ------------------------------------------------------------ operands

/** A timestamp operand: number of ns, or [ns, tz] / [ns, tz, layout]. */
export class TimeArg {
  constructor(public time: Time, public layout: string) {}
}

/** OPA's `tzTime`: null on a type error, an unknown zone, or a timestamp that is not an exact i64 ("timestamp too big"). */
export function timeArg(v: Value | null): TimeArg | null {
  if (v === null) return null;
  let ns: Value = v;
  let zone: Zone = UTC;
  let layout = "";
  if (v.kind == T_ARRAY) {
    const items = changetype<ArrV>(v).items;
    if (items.length == 0) return null;
    ns = items[0];
    if (items.length > 1) {
      const tz = items[1];
      if (tz.kind != T_STRING) return null;
      const z = loadZone(changetype<StrV>(tz).value);
      if (z === null) return null;
      zone = z;
    }
    if (items.length > 2) {
      const l = items[2];
      if (l.kind != T_STRING) return null;
      layout = changetype<StrV>(l).value;
    }
  }
  if (ns.kind != T_NUMBER) return null;
  const i = exactInt64(changetype<NumV>(ns));
  if (!i.ok) return null;
  return new TimeArg(timeFromUnixNano(i.value, zone), layout);
}

/** An integer operand (OPA's `IntOperand`): null when not an integral number within i64. */
export function intArg(v: Value | null): Int64 | null {
  if (v === null || v.kind != T_NUMBER) return null;
  const i = exactInt64(changetype<NumV>(v));
  return i.ok ? i : null;
}

// ------------------------------------------------------------ wall clock

/** Wall-clock fields of an instant in its zone. */
export class Local {
  constructor(
    public date: Civil,
    public wday: i32,
    public hour: i32,
    public min: i32,
    public sec: i32,
    public nsec: i32,
    public offset: i32,
    public abbr: string,
  ) {}
}

/** Splits `t` in its zone; null when the zone has no rules for that instant. */
export function localOf(t: Time): Local | null {
  const info = t.zone.lookup(t.sec);
  if (info === null) return null;
  const wall = t.sec + <i64>info.offset;
  const days = floorDiv(wall, SECS_PER_DAY);
  const sod = <i32>floorMod(wall, SECS_PER_DAY);
  return new Local(civilFromDays(days), weekdayOfDays(days), sod / 3600, (sod / 60) % 60, sod % 60, t.nsec, info.offset, info.abbr);
}

/** Beyond this many days from 1970 nothing is representable in i64 nanoseconds (~292 years); stops overflow early. */
const MAX_DAYS: i64 = 1_000_000_000;

/**
 * Go's `time.Date`: the instant whose wall clock in `zone` reads the given
 * fields, each allowed outside its usual range (month 14 is February of the
 * next year, day 0 the last day of the previous month). Null when the fields
 * are far outside any representable time or the zone has no rules there.
 */
export function dateIn(year: i64, month: i64, day: i64, hour: i64, min: i64, sec: i64, nsec: i64, zone: Zone): Time | null {
  const m0 = month - 1;
  const y = year + floorDiv(m0, 12);
  if (y < -MAX_DAYS || y > MAX_DAYS || day < -MAX_DAYS || day > MAX_DAYS) return null;
  const days = daysFromCivil(y, <i32>floorMod(m0, 12) + 1, 1) + day - 1;
  if (days < -MAX_DAYS || days > MAX_DAYS) return null;
  // Hours to nanoseconds only come from wall clocks here, so the sum is small.
  let unix = days * SECS_PER_DAY + hour * 3600 + min * 60 + sec + floorDiv(nsec, NS_PER_SEC);
  const ns = <i32>floorMod(nsec, NS_PER_SEC);
  // As Go does: guess the offset at the wall time read as UTC, and look
  // again if the corrected instant falls outside that offset's span.
  const guess = zone.lookup(unix);
  if (guess === null) return null;
  let offset = guess.offset;
  if (offset != 0) {
    const utc = unix - <i64>offset;
    if (utc < guess.start || utc >= guess.end) {
      const again = zone.lookup(utc);
      if (again === null) return null;
      offset = again.offset;
    }
    unix -= <i64>offset;
  }
  return new Time(unix, ns, zone);
}

