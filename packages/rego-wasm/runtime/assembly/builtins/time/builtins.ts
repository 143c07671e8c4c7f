/**
 * The `time.*` builtins (OPA's `topdown/time.go`), exported as `bi_time_*`.
 * Each takes and returns values; null (undefined) on every type or domain
 * error, as in OPA's non-strict mode.
 *
 * Timestamp operands are a number of nanoseconds or `[ns, tz]` (`[ns, tz,
 * layout]` for time.format); tz is "UTC", "", "Local" (taken as UTC: a Wasm
 * module has no host zone), an `Etc/GMT±N` zone or a name from the small
 * table in `zone-table.ts`. Other names are undefined, as are times before a
 * named zone's table entry is valid (see `zone.ts`).
 *
 * `time.now_ns` is not here: the Wasm module has no clock, so the catalogue
 * marks it a host builtin (`compiler/builtins/time.ts`).
 */

import { ArrV, StrV, Value, T_STRING, num, str } from "../../value";
import { daysIn, weekdayName } from "./civil";
import { parseDuration } from "./duration";
import { Int64, Local, Time, dateIn, int64Value, intArg, localOf, timeArg, unixNanoValue } from "./instant";
import { RFC3339, RFC3339_NANO, formatTime, namedLayout } from "./layout";
import { parseTime } from "./parse";

function stringArg(v: Value | null): string | null {
  if (v === null || v.kind != T_STRING) return null;
  return changetype<StrV>(v).value;
}

function ints(a: i64, b: i64, c: i64): ArrV {
  const items = new Array<Value>(3);
  items[0] = num(<f64>a);
  items[1] = num(<f64>b);
  items[2] = num(<f64>c);
  return new ArrV(items);
}

/** The wall-clock fields of a timestamp operand, or null. */
function localArg(v: Value | null): Local | null {
  const t = timeArg(v);
  return t === null ? null : localOf(t.time);
}

/** time.parse_rfc3339_ns(value): ns since the epoch of an RFC 3339 timestamp. */
export function bi_time_parse_rfc3339_ns(value: Value | null): Value | null {
  const s = stringArg(value);
  if (s === null) return null;
  const t = parseTime(RFC3339, s);
  return t === null ? null : unixNanoValue(t);
}

/** time.parse_ns(layout, value): ns since the epoch of value read with a Go layout (or a layout constant's name). */
export function bi_time_parse_ns(layout: Value | null, value: Value | null): Value | null {
  let l = stringArg(layout);
  const s = stringArg(value);
  if (l === null || s === null) return null;
  const named = namedLayout(l);
  if (named !== null) l = named;
  const t = parseTime(l, s);
  return t === null ? null : unixNanoValue(t);
}

/** time.parse_duration_ns(duration): ns of a Go duration string. */
export function bi_time_parse_duration_ns(duration: Value | null): Value | null {
  const s = stringArg(duration);
  if (s === null) return null;
  const d = parseDuration(s);
  return d.ok ? int64Value(d.ns) : null;
}

/** time.date(x): [year, month, day]. */
export function bi_time_date(x: Value | null): Value | null {
  const l = localArg(x);
  return l === null ? null : ints(l.date.year, l.date.month, l.date.day);
}

/** time.clock(x): [hour, minute, second]. */
export function bi_time_clock(x: Value | null): Value | null {
  const l = localArg(x);
  return l === null ? null : ints(l.hour, l.min, l.sec);
}

/** time.weekday(x): "Monday" .. "Sunday". */
export function bi_time_weekday(x: Value | null): Value | null {
  const l = localArg(x);
  return l === null ? null : str(weekdayName(l.wday));
}

/** Beyond these the result is far outside the ns range anyway; the bound keeps i64 sums from wrapping. */
const MAX_ADD: i64 = 1_000_000_000_000_000;

function small(i: Int64 | null): bool {
  return i !== null && i.value < MAX_ADD && i.value > -MAX_ADD;
}

/** time.add_date(ns, years, months, days): ns after Go's `AddDate`, which normalises (Oct 31 + 1 month = Dec 1). */
export function bi_time_add_date(x: Value | null, years: Value | null, months: Value | null, days: Value | null): Value | null {
  const t = timeArg(x);
  const y = intArg(years);
  const m = intArg(months);
  const d = intArg(days);
  if (t === null || y === null || m === null || d === null) return null;
  if (!small(y) || !small(m) || !small(d)) return null;
  const l = localOf(t.time);
  if (l === null) return null;
  const r = dateIn(l.date.year + y.value, <i64>l.date.month + m.value, <i64>l.date.day + d.value, l.hour, l.min, l.sec, l.nsec, t.time.zone);
  return r === null ? null : unixNanoValue(r);
}

function before(a: Time, b: Time): bool {
  return a.sec < b.sec || (a.sec == b.sec && a.nsec < b.nsec);
}

/**
 * time.diff(ns1, ns2): [years, months, days, hours, minutes, seconds] between
 * two instants, both read in the first one's zone, earlier from later (the
 * order of the operands does not matter). OPA takes the algorithm from
 * github.com/icza/gox; this follows its steps.
 */
export function bi_time_diff(x1: Value | null, x2: Value | null): Value | null {
  const a1 = timeArg(x1);
  const a2 = timeArg(x2);
  if (a1 === null || a2 === null) return null;
  let t1 = a1.time;
  let t2 = new Time(a2.time.sec, a2.time.nsec, t1.zone);
  if (before(t2, t1)) {
    const t = t1;
    t1 = t2;
    t2 = t;
  }
  const l1 = localOf(t1);
  const l2 = localOf(t2);
  if (l1 === null || l2 === null) return null;
  let year = l2.date.year - l1.date.year;
  let month = <i64>(l2.date.month - l1.date.month);
  let day = <i64>(l2.date.day - l1.date.day);
  let hour = <i64>(l2.hour - l1.hour);
  let min = <i64>(l2.min - l1.min);
  let sec = <i64>(l2.sec - l1.sec);
  if (sec < 0) { sec += 60; min--; }
  if (min < 0) { min += 60; hour--; }
  if (hour < 0) { hour += 24; day--; }
  if (day < 0) { day += daysIn(l1.date.month, l1.date.year); month--; }
  if (month < 0) { month += 12; year--; }
  const items = new Array<Value>(6);
  items[0] = num(<f64>year);
  items[1] = num(<f64>month);
  items[2] = num(<f64>day);
  items[3] = num(<f64>hour);
  items[4] = num(<f64>min);
  items[5] = num(<f64>sec);
  return new ArrV(items);
}

/** time.format(x): x written with its layout (a Go layout or a constant's name), RFC 3339 with nanoseconds by default. */
export function bi_time_format(x: Value | null): Value | null {
  const t = timeArg(x);
  if (t === null) return null;
  const l = localOf(t.time);
  if (l === null) return null;
  let layout = t.layout;
  if (layout.length == 0) layout = RFC3339_NANO;
  else {
    const named = namedLayout(layout);
    if (named !== null) layout = named;
  }
  return str(formatTime(l, layout));
}
