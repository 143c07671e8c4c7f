/**
 * Go's `time.Parse(layout, value)` as OPA calls it: the value is read element
 * by element against the layout (`layout.ts`), fields out of range or text
 * that does not match make the parse fail (null), and the result is an
 * instant.
 *
 * Zones follow Go with `time.Local` taken as UTC: a numeric offset shifts the
 * instant; a zone abbreviation ("MST", "PST", "GMT+3") is checked for shape
 * but, being unknown to UTC, leaves the wall time read as UTC, exactly what
 * Go does for abbreviations its local zone does not use.
 */

import { daysIn, dayNames, isLeap, monthNames } from "./civil";
import { Time, dateIn } from "./instant";
import * as L from "./layout";
import { Num, atoi, getnum, getnum3, isDigit, lookupName, parseNanos, parseOffset, skip, timeZoneLen } from "./scan";
import { UTC } from "./zone";

/** Days before the first of each month in a common year (Go's `daysBefore`), index = month. */
const DAYS_BEFORE: i32[] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** Go's `time.Parse(layout, value)` with Local = UTC; null when value does not match layout. */
export function parseTime(layout: string, value: string): Time | null {
  let year: i64 = 0;
  let month: i64 = -1;
  let day: i64 = -1;
  let yday: i64 = -1;
  let hour: i64 = 0;
  let min: i64 = 0;
  let sec: i64 = 0;
  let nsec: i64 = 0;
  let zoneOffset: i64 = -1; // Go's sentinel, kept for fidelity
  let zoneUTC = false; // "Z" or "UTC" read: wins over any numeric offset, as in Go
  let amSet = false;
  let pmSet = false;

  while (true) {
    const ch = L.nextChunk(layout);
    const skipped = skip(value, ch.prefix);
    if (skipped === null) return null;
    value = skipped;
    if (ch.std == 0) {
      if (value.length != 0) return null; // extra text
      break;
    }
    layout = ch.suffix;
    let r = new Num(); // ok unless an element fails
    r.rest = value;
    let inRange = true;
    switch (ch.std) {
      case L.YEAR:
        if (value.length < 2) { r.ok = false; break; }
        r = atoi(value.substring(0, 2));
        r.rest = value.substring(2);
        year = r.n >= 69 ? r.n + 1900 : r.n + 2000;
        break;
      case L.LONG_YEAR:
        if (value.length < 4 || !isDigit(value, 0)) { r.ok = false; break; }
        r = atoi(value.substring(0, 4));
        r.rest = value.substring(4);
        year = r.n;
        break;
      case L.MONTH:
      case L.LONG_MONTH:
        r = lookupName(monthNames(), ch.std == L.MONTH ? 3 : 0, value);
        month = r.n + 1;
        break;
      case L.NUM_MONTH:
      case L.ZERO_MONTH:
        r = getnum(value, ch.std == L.ZERO_MONTH);
        month = r.n;
        inRange = !r.ok || (month > 0 && month <= 12);
        break;
      case L.WEEKDAY:
      case L.LONG_WEEKDAY: // checked for syntax, otherwise ignored
        r = lookupName(dayNames(), ch.std == L.WEEKDAY ? 3 : 0, value);
        break;
      case L.DAY:
      case L.UNDER_DAY:
      case L.ZERO_DAY: {
        let v = value;
        if (ch.std == L.UNDER_DAY && v.length > 0 && v.charCodeAt(0) == 0x20) v = v.substring(1);
        r = getnum(v, ch.std == L.ZERO_DAY);
        day = r.n; // validated against the month once all is read
        break;
      }
      case L.UNDER_YEARDAY:
      case L.ZERO_YEARDAY: {
        let v = value;
        for (let i = 0; i < 2; i++) if (ch.std == L.UNDER_YEARDAY && v.length > 0 && v.charCodeAt(0) == 0x20) v = v.substring(1);
        r = getnum3(v, ch.std == L.ZERO_YEARDAY);
        yday = r.n;
        break;
      }
      case L.HOUR:
        r = getnum(value, false);
        hour = r.n;
        inRange = hour < 24;
        break;
      case L.HOUR12:
      case L.ZERO_HOUR12:
        r = getnum(value, ch.std == L.ZERO_HOUR12);
        hour = r.n;
        inRange = hour <= 12;
        break;
      case L.MINUTE:
      case L.ZERO_MINUTE:
        r = getnum(value, ch.std == L.ZERO_MINUTE);
        min = r.n;
        inRange = min < 60;
        break;
      case L.SECOND:
      case L.ZERO_SECOND: {
        r = getnum(value, ch.std == L.ZERO_SECOND);
        if (!r.ok) break;
        sec = r.n;
        if (sec >= 60) { inRange = false; break; }
        // A fraction in the value that the layout does not mention is read anyway.
        const rest = r.rest;
        if (rest.length >= 2 && (rest.charCodeAt(0) == 0x2e || rest.charCodeAt(0) == 0x2c) && isDigit(rest, 1)) {
          const next = L.nextChunk(layout).std;
          if (next == L.FRAC_SECOND_0 || next == L.FRAC_SECOND_9) break; // the layout reads it
          let n = 2;
          while (n < rest.length && isDigit(rest, n)) n++;
          const f = parseNanos(rest, n);
          if (!f.ok) { r.ok = false; break; }
          nsec = f.n;
          r.rest = rest.substring(n);
        }
        break;
      }
      case L.PM_UPPER:
      case L.PM_LOWER: {
        if (value.length < 2) { r.ok = false; break; }
        const p = value.substring(0, 2);
        r.rest = value.substring(2);
        const upper = ch.std == L.PM_UPPER;
        if (p == (upper ? "PM" : "pm")) pmSet = true;
        else if (p == (upper ? "AM" : "am")) amSet = true;
        else r.ok = false;
        break;
      }
      case L.TZ_NAME: {
        if (value.startsWith("UTC")) {
          r.rest = value.substring(3);
          zoneUTC = true;
          break;
        }
        const n = timeZoneLen(value);
        if (n == 0) { r.ok = false; break; }
        r.rest = value.substring(n); // an abbreviation Local (= UTC) does not use: no offset
        break;
      }
      case L.FRAC_SECOND_0: {
        const n = 1 + ch.fracDigits; // exactly the digits the layout shows
        if (value.length < n) { r.ok = false; break; }
        r = parseNanos(value, n);
        nsec = r.n;
        r.rest = value.substring(n);
        break;
      }
      case L.FRAC_SECOND_9: {
        if (value.length < 2 || !(value.charCodeAt(0) == 0x2e || value.charCodeAt(0) == 0x2c) || !isDigit(value, 1)) break; // omitted
        let i = 0;
        while (i + 1 < value.length && isDigit(value, i + 1)) i++; // any number of digits, as SECOND would
        r = parseNanos(value, 1 + i);
        nsec = r.n;
        r.rest = value.substring(1 + i);
        break;
      }
      default: {
        // numeric zone offsets; the ISO forms also accept "Z"
        if (ch.std >= L.ISO_TZ && ch.std <= L.ISO_COLON_SECONDS_TZ && value.length >= 1 && value.charCodeAt(0) == 0x5a) {
          r.rest = value.substring(1);
          zoneUTC = true;
          break;
        }
        const off = parseOffset(ch.std, value);
        if (off === null) { r.ok = false; break; }
        zoneOffset = off.n;
        r.rest = off.rest;
        inRange = off.ok;
        break;
      }
    }
    if (!inRange || !r.ok) return null;
    value = r.rest;
  }

  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour == 12) hour = 0;

  if (yday >= 0) {
    // Convert the day of the year to month and day; they must agree if also given.
    let d: i64 = 0;
    let m: i64 = 0;
    if (isLeap(year)) {
      if (yday == 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (yday < 1 || yday > 365) return null;
    if (m == 0) {
      m = (yday - 1) / 31 + 1;
      if (<i64>DAYS_BEFORE[<i32>m + 1] < yday) m++;
      d = yday - <i64>DAYS_BEFORE[<i32>m];
    }
    if (month >= 0 && month != m) return null;
    month = m;
    if (day >= 0 && day != d) return null;
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > <i64>daysIn(<i32>month, year)) return null;

  const t = dateIn(year, month, day, hour, min, sec, nsec, UTC);
  if (t === null) return null;
  if (!zoneUTC && zoneOffset != -1) t.sec -= zoneOffset;
  return t;
}
