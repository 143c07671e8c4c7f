/**
 * Go's layout strings ("2006-01-02T15:04:05Z07:00", "Mon Jan _2 15:04:05 MST
 * 2006"): splitting a layout into literal text and reference-time elements
 * (Go's `nextStdChunk`), the named layouts OPA accepts, and formatting an
 * instant with a layout (`Time.Format`). Parsing is in `parse.ts`.
 *
 * Go walks layouts byte by byte; this walks UTF-16 code units. Every element
 * is ASCII, so the split is the same; only literal text differs in unit, and
 * it is copied or compared whole.
 */

import { Local } from "./instant";
import { monthName, weekdayName } from "./civil";

// Element kinds, named after Go's std* constants.
export const LONG_MONTH = 1; // January
export const MONTH = 2; // Jan
export const NUM_MONTH = 3; // 1
export const ZERO_MONTH = 4; // 01
export const LONG_WEEKDAY = 5; // Monday
export const WEEKDAY = 6; // Mon
export const DAY = 7; // 2
export const UNDER_DAY = 8; // _2
export const ZERO_DAY = 9; // 02
export const UNDER_YEARDAY = 10; // __2
export const ZERO_YEARDAY = 11; // 002
export const HOUR = 12; // 15
export const HOUR12 = 13; // 3
export const ZERO_HOUR12 = 14; // 03
export const MINUTE = 15; // 4
export const ZERO_MINUTE = 16; // 04
export const SECOND = 17; // 5
export const ZERO_SECOND = 18; // 05
export const LONG_YEAR = 19; // 2006
export const YEAR = 20; // 06
export const PM_UPPER = 21; // PM
export const PM_LOWER = 22; // pm
export const TZ_NAME = 23; // MST
export const ISO_TZ = 24; // Z0700
export const ISO_SECONDS_TZ = 25; // Z070000
export const ISO_SHORT_TZ = 26; // Z07
export const ISO_COLON_TZ = 27; // Z07:00
export const ISO_COLON_SECONDS_TZ = 28; // Z07:00:00
export const NUM_TZ = 29; // -0700
export const NUM_SECONDS_TZ = 30; // -070000
export const NUM_SHORT_TZ = 31; // -07
export const NUM_COLON_TZ = 32; // -07:00
export const NUM_COLON_SECONDS_TZ = 33; // -07:00:00
export const FRAC_SECOND_0 = 34; // .000 (fixed digits)
export const FRAC_SECOND_9 = 35; // .999 (trailing zeros dropped)

/** One step through a layout: literal `prefix`, then element `std` (0 = none left) spelled `stdText`, then `suffix`. */
export class Chunk {
  constructor(public prefix: string, public std: i32, public stdText: string, public suffix: string,
              public fracDigits: i32 = 0, public fracSep: i32 = 0x2e) {}
}

function chunk(layout: string, at: i32, len: i32, std: i32): Chunk {
  return new Chunk(layout.substring(0, at), std, layout.substr(at, len), layout.substring(at + len));
}

function startsWithLowerAt(s: string, i: i32): bool {
  if (i >= s.length) return false;
  const c = s.charCodeAt(i);
  return c >= 0x61 && c <= 0x7a;
}

function isDigitAt(s: string, i: i32): bool {
  if (i >= s.length) return false;
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

const STD_0X: i32[] = [ZERO_MONTH, ZERO_DAY, ZERO_HOUR12, ZERO_MINUTE, ZERO_SECOND, YEAR];

/** Go's `nextStdChunk`: the first element of `layout`, with the text around it. */
export function nextChunk(layout: string): Chunk {
  const n = layout.length;
  for (let i = 0; i < n; i++) {
    const c = layout.charCodeAt(i);
    const rest = layout.substring(i);
    switch (c) {
      case 0x4a: // J
        if (rest.startsWith("Jan")) {
          if (rest.startsWith("January")) return chunk(layout, i, 7, LONG_MONTH);
          if (!startsWithLowerAt(layout, i + 3)) return chunk(layout, i, 3, MONTH);
        }
        break;
      case 0x4d: // M
        if (rest.startsWith("Mon")) {
          if (rest.startsWith("Monday")) return chunk(layout, i, 6, LONG_WEEKDAY);
          if (!startsWithLowerAt(layout, i + 3)) return chunk(layout, i, 3, WEEKDAY);
        }
        if (rest.startsWith("MST")) return chunk(layout, i, 3, TZ_NAME);
        break;
      case 0x30: { // 0
        const d = i + 1 < n ? layout.charCodeAt(i + 1) : 0;
        if (d >= 0x31 && d <= 0x36) return chunk(layout, i, 2, STD_0X[d - 0x31]);
        if (rest.startsWith("002")) return chunk(layout, i, 3, ZERO_YEARDAY);
        break;
      }
      case 0x31: // 1
        if (rest.startsWith("15")) return chunk(layout, i, 2, HOUR);
        return chunk(layout, i, 1, NUM_MONTH);
      case 0x32: // 2
        if (rest.startsWith("2006")) return chunk(layout, i, 4, LONG_YEAR);
        return chunk(layout, i, 1, DAY);
      case 0x5f: // _
        if (rest.startsWith("_2")) {
          // "_2006" is a literal underscore, then the year
          if (rest.startsWith("_2006")) return chunk(layout, i + 1, 4, LONG_YEAR);
          return chunk(layout, i, 2, UNDER_DAY);
        }
        if (rest.startsWith("__2")) return chunk(layout, i, 3, UNDER_YEARDAY);
        break;
      case 0x33: return chunk(layout, i, 1, HOUR12); // 3
      case 0x34: return chunk(layout, i, 1, MINUTE); // 4
      case 0x35: return chunk(layout, i, 1, SECOND); // 5
      case 0x50: // P
        if (rest.startsWith("PM")) return chunk(layout, i, 2, PM_UPPER);
        break;
      case 0x70: // p
        if (rest.startsWith("pm")) return chunk(layout, i, 2, PM_LOWER);
        break;
      case 0x2d: // -
        if (rest.startsWith("-070000")) return chunk(layout, i, 7, NUM_SECONDS_TZ);
        if (rest.startsWith("-07:00:00")) return chunk(layout, i, 9, NUM_COLON_SECONDS_TZ);
        if (rest.startsWith("-0700")) return chunk(layout, i, 5, NUM_TZ);
        if (rest.startsWith("-07:00")) return chunk(layout, i, 6, NUM_COLON_TZ);
        if (rest.startsWith("-07")) return chunk(layout, i, 3, NUM_SHORT_TZ);
        break;
      case 0x5a: // Z
        if (rest.startsWith("Z070000")) return chunk(layout, i, 7, ISO_SECONDS_TZ);
        if (rest.startsWith("Z07:00:00")) return chunk(layout, i, 9, ISO_COLON_SECONDS_TZ);
        if (rest.startsWith("Z0700")) return chunk(layout, i, 5, ISO_TZ);
        if (rest.startsWith("Z07:00")) return chunk(layout, i, 6, ISO_COLON_TZ);
        if (rest.startsWith("Z07")) return chunk(layout, i, 3, ISO_SHORT_TZ);
        break;
      case 0x2e: // . or , followed by 0s or 9s: fractional seconds
      case 0x2c: {
        const d = i + 1 < n ? layout.charCodeAt(i + 1) : 0;
        if (d == 0x30 || d == 0x39) {
          let j = i + 1;
          while (j < n && layout.charCodeAt(j) == d) j++;
          // the run of digits must end here: only a fractional second is all digits
          if (!isDigitAt(layout, j)) {
            const ch = chunk(layout, i, j - i, d == 0x30 ? FRAC_SECOND_0 : FRAC_SECOND_9);
            ch.fracDigits = j - (i + 1);
            ch.fracSep = c;
            return ch;
          }
        }
        break;
      }
    }
  }
  return new Chunk(layout, 0, "", "");
}

/** OPA's `acceptedTimeFormats`: Go layout constants usable by name. */
export function namedLayout(name: string): string | null {
  if (name == "ANSIC") return "Mon Jan _2 15:04:05 2006";
  if (name == "UnixDate") return "Mon Jan _2 15:04:05 MST 2006";
  if (name == "RubyDate") return "Mon Jan 02 15:04:05 -0700 2006";
  if (name == "RFC822") return "02 Jan 06 15:04 MST";
  if (name == "RFC822Z") return "02 Jan 06 15:04 -0700";
  if (name == "RFC850") return "Monday, 02-Jan-06 15:04:05 MST";
  if (name == "RFC1123") return "Mon, 02 Jan 2006 15:04:05 MST";
  if (name == "RFC1123Z") return "Mon, 02 Jan 2006 15:04:05 -0700";
  if (name == "RFC3339") return RFC3339;
  if (name == "RFC3339Nano") return RFC3339_NANO;
  return null;
}

export const RFC3339 = "2006-01-02T15:04:05Z07:00";
export const RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00";

// ------------------------------------------------------------ formatting

/** Go's `appendInt`: decimal of x, zero-padded to `width` digits (sign not counted). */
export function padInt(x: i64, width: i32): string {
  const neg = x < 0;
  let s = (neg ? -x : x).toString();
  while (s.length < width) s = "0" + s;
  return neg ? "-" + s : s;
}

/** Go's `appendNano`: the fraction of a second for a FRAC_SECOND_* element. */
function fraction(nsec: i32, ch: Chunk): string {
  const trim = ch.std == FRAC_SECOND_9;
  if (trim && (ch.fracDigits == 0 || nsec == 0)) return "";
  let digits = padInt(nsec, 9);
  if (ch.fracDigits < 9) digits = digits.substring(0, ch.fracDigits);
  if (trim) {
    let end = digits.length;
    while (end > 0 && digits.charCodeAt(end - 1) == 0x30) end--;
    digits = digits.substring(0, end);
    if (digits.length == 0) return "";
  }
  return String.fromCharCode(ch.fracSep) + digits;
}

/** `Time.Format`: `t` (already split in its zone) written with a Go layout. */
export function formatTime(t: Local, layout: string): string {
  const parts = new Array<string>();
  const year = t.date.year;
  const hour = t.hour;
  while (layout.length > 0) {
    const ch = nextChunk(layout);
    if (ch.prefix.length > 0) parts.push(ch.prefix);
    if (ch.std == 0) break;
    layout = ch.suffix;
    switch (ch.std) {
      case YEAR: parts.push(padInt((year < 0 ? -year : year) % 100, 2)); break;
      case LONG_YEAR: parts.push(padInt(year, 4)); break;
      case MONTH: parts.push(monthName(t.date.month).substring(0, 3)); break;
      case LONG_MONTH: parts.push(monthName(t.date.month)); break;
      case NUM_MONTH: parts.push(padInt(t.date.month, 0)); break;
      case ZERO_MONTH: parts.push(padInt(t.date.month, 2)); break;
      case WEEKDAY: parts.push(weekdayName(t.wday).substring(0, 3)); break;
      case LONG_WEEKDAY: parts.push(weekdayName(t.wday)); break;
      case DAY: parts.push(padInt(t.date.day, 0)); break;
      case UNDER_DAY: parts.push((t.date.day < 10 ? " " : "") + padInt(t.date.day, 0)); break;
      case ZERO_DAY: parts.push(padInt(t.date.day, 2)); break;
      case UNDER_YEARDAY: {
        const yd = t.date.yday;
        parts.push((yd < 100 ? (yd < 10 ? "  " : " ") : "") + padInt(yd, 0));
        break;
      }
      case ZERO_YEARDAY: parts.push(padInt(t.date.yday, 3)); break;
      case HOUR: parts.push(padInt(hour, 2)); break;
      case HOUR12: parts.push(padInt(hour % 12 == 0 ? 12 : hour % 12, 0)); break; // noon is 12PM, midnight 12AM
      case ZERO_HOUR12: parts.push(padInt(hour % 12 == 0 ? 12 : hour % 12, 2)); break;
      case MINUTE: parts.push(padInt(t.min, 0)); break;
      case ZERO_MINUTE: parts.push(padInt(t.min, 2)); break;
      case SECOND: parts.push(padInt(t.sec, 0)); break;
      case ZERO_SECOND: parts.push(padInt(t.sec, 2)); break;
      case PM_UPPER: parts.push(hour >= 12 ? "PM" : "AM"); break;
      case PM_LOWER: parts.push(hour >= 12 ? "pm" : "am"); break;
      case TZ_NAME:
        // A zone without an abbreviation prints as -0700.
        parts.push(t.abbr.length > 0 ? t.abbr : zoneOffset(t.offset, NUM_TZ));
        break;
      case FRAC_SECOND_0:
      case FRAC_SECOND_9: parts.push(fraction(t.nsec, ch)); break;
      default: parts.push(zoneOffset(t.offset, ch.std)); break; // the numeric zone forms
    }
  }
  return parts.join("");
}

/** A numeric zone element; the ISO forms write "Z" for UTC. */
function zoneOffset(offset: i32, std: i32): string {
  const iso = std >= ISO_TZ && std <= ISO_COLON_SECONDS_TZ;
  if (offset == 0 && iso) return "Z";
  let zone = offset / 60; // minutes
  let abs = offset;
  let s = "+";
  if (zone < 0) {
    s = "-";
    zone = -zone;
    abs = -abs;
  }
  s += padInt(zone / 60, 2);
  const colon = std == ISO_COLON_TZ || std == NUM_COLON_TZ || std == ISO_COLON_SECONDS_TZ || std == NUM_COLON_SECONDS_TZ;
  if (colon) s += ":";
  if (std != NUM_SHORT_TZ && std != ISO_SHORT_TZ) s += padInt(zone % 60, 2);
  if (std == ISO_SECONDS_TZ || std == NUM_SECONDS_TZ || std == NUM_COLON_SECONDS_TZ || std == ISO_COLON_SECONDS_TZ) {
    if (std == NUM_COLON_SECONDS_TZ || std == ISO_COLON_SECONDS_TZ) s += ":";
    s += padInt(abs % 60, 2);
  }
  return s;
}
