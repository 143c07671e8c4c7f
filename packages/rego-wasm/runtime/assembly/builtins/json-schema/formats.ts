/** The `format` keyword: gojsonschema's format checkers. */

import { Value, asStr, T_STRING } from "../../value";
import { getRegexp } from "../regex/regexp";

const UUID_RE = "^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
const HOSTNAME_RE = "^[a-zA-Z0-9]([a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])?)*$";
const DATE_RE = "^([0-9]{4})-([0-9]{2})-([0-9]{2})$";
const TIME_RE = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.[0-9]+)?([zZ]|[+-]([0-9]{2}):([0-9]{2}))$";

function matches(pattern: string, s: string): bool {
  return getRegexp(pattern)!.matchString(s);
}

function isDate(s: string): bool {
  if (!matches(DATE_RE, s)) return false;
  const y = I32.parseInt(s.substring(0, 4));
  const m = I32.parseInt(s.substring(5, 7));
  const d = I32.parseInt(s.substring(8, 10));
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const days: i32 = m == 2 ? (leap ? 29 : 28) : m == 4 || m == 6 || m == 9 || m == 11 ? 30 : 31;
  return d <= days;
}

function isTime(s: string): bool {
  if (!matches(TIME_RE, s)) return false;
  const h = I32.parseInt(s.substring(0, 2));
  const mi = I32.parseInt(s.substring(3, 5));
  const se = I32.parseInt(s.substring(6, 8));
  if (h > 23 || mi > 59 || se > 59) return false;
  const z = s.charCodeAt(s.length - 1);
  if (z == 0x5a || z == 0x7a) return true;
  return I32.parseInt(s.substring(s.length - 5, s.length - 3)) <= 23 && I32.parseInt(s.substring(s.length - 2)) <= 59;
}

/** A dotted-quad IPv4 address as Go's net.ParseIP reads it (no leading zeros). */
function isIPv4(s: string): bool {
  const parts = s.split(".");
  if (parts.length != 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length == 0 || p.length > 3 || (p.length > 1 && p.charCodeAt(0) == 0x30)) return false;
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j);
      if (c < 0x30 || c > 0x39) return false;
    }
    if (I32.parseInt(p) > 255) return false;
  }
  return true;
}

/**
 * gojsonschema's format checkers for the formats that need no URL, mail or
 * IPv6 parser; other format names pass, as unknown formats do in gojsonschema.
 * Non-strings always pass.
 */
export function isFormat(format: string, v: Value): bool {
  if (v.kind != T_STRING) return true;
  const s = asStr(v).value;
  if (format == "ipv4") return isIPv4(s);
  if (format == "uuid") return matches(UUID_RE, s);
  if (format == "hostname") return s.length <= 253 && matches(HOSTNAME_RE, s);
  if (format == "date") return isDate(s);
  if (format == "time") return isTime(s);
  if (format == "date-time") {
    const t = s.indexOf("T") >= 0 ? s.indexOf("T") : s.indexOf("t");
    return t == 10 && isDate(s.substring(0, 10)) && isTime(s.substring(11));
  }
  if (format == "regex") return getRegexp(s) !== null;
  return true;
}
