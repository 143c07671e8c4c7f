/**
 * Time zones: what Go's `*time.Location` is to the time builtins, without a
 * tz database. A zone is either a fixed offset or one standard/daylight pair
 * switched by POSIX TZ rules (`PST8PDT,M3.2.0,M11.1.0`), the form tzdata
 * itself uses for the rules in force today.
 *
 * A rule is only true from the zone's last change of rules on, so every zone
 * carries `validFrom` (unix seconds): `lookup` refuses earlier instants
 * (returns null) rather than answer with today's rules for, say, 1990 Los
 * Angeles, which would be silently wrong. The names known are in
 * `zone-table.ts`; "UTC", "" and "Local" (the host's zone is not knowable
 * here, so it is UTC) never fail.
 */

import { SECS_PER_DAY, civilFromDays, daysFromCivil, daysIn, floorDiv, weekdayOfDays } from "./civil";
import { zoneSpec } from "./zone-table";

/** Smallest and largest unix second any lookup can meet. */
export const ALPHA: i64 = i64.MIN_VALUE;
export const OMEGA: i64 = i64.MAX_VALUE;

/** Daylight-time switch rule `Mm.w.d/time`: the w-th (5 = last) weekday d of month m, at `time` seconds of local time. */
class Rule {
  constructor(public month: i32, public week: i32, public wday: i32, public time: i32) {}

  /** Unix second of this rule's moment in `year`, for a zone whose offset just before it is `offsetBefore`. */
  at(year: i64, offsetBefore: i32): i64 {
    const first = weekdayOfDays(daysFromCivil(year, this.month, 1));
    let day = ((this.wday - first + 7) % 7) + 1 + (this.week - 1) * 7;
    const last = daysIn(this.month, year);
    while (day > last) day -= 7;
    return daysFromCivil(year, this.month, day) * SECS_PER_DAY + <i64>this.time - <i64>offsetBefore;
  }
}

/** The zone in effect at an instant: offset east of UTC in seconds, abbreviation, and the span [start, end) it holds for. */
export class ZoneInfo {
  constructor(public offset: i32, public abbr: string, public start: i64, public end: i64) {}
}

export class Zone {
  dstOffset: i32 = 0;
  dstAbbr: string = "";
  dstStart: Rule | null = null;
  dstEnd: Rule | null = null;

  constructor(public name: string, public stdOffset: i32, public stdAbbr: string, public validFrom: i64 = ALPHA) {}

  /** Zone in effect at unix second `t`, or null when `t` is before the rules this zone knows. */
  lookup(t: i64): ZoneInfo | null {
    if (t < this.validFrom) return null;
    const start = this.dstStart;
    const end = this.dstEnd;
    if (start === null || end === null) return new ZoneInfo(this.stdOffset, this.stdAbbr, ALPHA, OMEGA);
    // Transitions of the years around t, in time order; southern zones end
    // daylight time early in the calendar year, so sort rather than assume.
    const year = civilFromDays(floorDiv(t + <i64>this.stdOffset, SECS_PER_DAY)).year;
    const times = new Array<i64>();
    const isDst = new Array<bool>();
    for (let y = year - 1; y <= year + 1; y++) {
      insertSorted(times, isDst, start.at(y, this.stdOffset), true);
      insertSorted(times, isDst, end.at(y, this.dstOffset), false);
    }
    // t lies in the middle year, so a transition of the year before precedes
    // it and one of the year after follows it.
    let i = times.length - 2;
    while (i > 0 && times[i] > t) i--;
    const dst = isDst[i];
    return new ZoneInfo(dst ? this.dstOffset : this.stdOffset, dst ? this.dstAbbr : this.stdAbbr, times[i], times[i + 1]);
  }
}

function insertSorted(times: Array<i64>, flags: Array<bool>, t: i64, flag: bool): void {
  let i = times.length;
  times.push(t);
  flags.push(flag);
  while (i > 0 && times[i - 1] > t) {
    times[i] = times[i - 1];
    flags[i] = flags[i - 1];
    i--;
  }
  times[i] = t;
  flags[i] = flag;
}

export const UTC: Zone = new Zone("UTC", 0, "UTC");

/**
 * The zone named `name` as OPA's `time.LoadLocation` would find it, or null
 * for a name this runtime does not know (OPA errors on unknown names too).
 */
export function loadZone(name: string): Zone | null {
  if (name == "" || name == "UTC" || name == "Local") return UTC;
  const etc = etcZone(name);
  if (etc !== null) return etc;
  const spec = zoneSpec(name);
  if (spec === null) return null;
  // spec: "<posix TZ> <valid from YYYY-MM-DD>"
  const sp = spec.indexOf(" ");
  const from = spec.substring(sp + 1);
  const days = daysFromCivil(<i64>I32.parseInt(from.substring(0, 4)), I32.parseInt(from.substring(5, 7)), I32.parseInt(from.substring(8, 10)));
  return parsePosixTZ(name, spec.substring(0, sp), days * SECS_PER_DAY);
}

/** The tzdata `Etc/` family and its aliases: fixed offsets, valid forever. `Etc/GMT+5` is five hours WEST (POSIX sign). */
function etcZone(name: string): Zone | null {
  if (name == "Etc/UTC" || name == "Etc/UCT" || name == "UCT" || name == "Etc/Universal" || name == "Universal" || name == "Etc/Zulu" || name == "Zulu") {
    return new Zone(name, 0, "UTC");
  }
  if (name == "GMT" || name == "Etc/GMT" || name == "GMT0" || name == "GMT+0" || name == "GMT-0" || name == "Etc/GMT0" ||
      name == "Etc/GMT+0" || name == "Etc/GMT-0" || name == "Greenwich" || name == "Etc/Greenwich") {
    return new Zone(name, 0, "GMT");
  }
  if (!name.startsWith("Etc/GMT") || name.length < 9 || name.length > 10) return null;
  const sign = name.charCodeAt(7);
  if (sign != 0x2b && sign != 0x2d) return null;
  let hours = 0;
  for (let i = 8; i < name.length; i++) {
    const c = name.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return null;
    hours = hours * 10 + c;
  }
  if (name.length == 10 && name.charCodeAt(8) == 0x30) return null; // "Etc/GMT+05" is no tzdata name
  if (hours == 0 || (sign == 0x2b && hours > 12) || (sign == 0x2d && hours > 14)) return null;
  const east = sign == 0x2d ? hours : -hours;
  const abbr = (east < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + hours.toString();
  return new Zone(name, east * 3600, abbr);
}

// ------------------------------------------------------------ POSIX TZ strings

/** Cursor over a POSIX TZ string; `ok` drops to false on the first syntax error. */
class Cursor {
  pos: i32 = 0;
  ok: bool = true;
  constructor(public s: string) {}
  peek(): i32 {
    return this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1;
  }
  eat(c: i32): bool {
    if (this.peek() != c) return false;
    this.pos++;
    return true;
  }
  num(): i32 {
    let n = 0;
    const begin = this.pos;
    while (this.peek() >= 0x30 && this.peek() <= 0x39) n = n * 10 + (this.s.charCodeAt(this.pos++) - 0x30);
    if (this.pos == begin) this.ok = false;
    return n;
  }
}

/** `std offset [dst [offset] ,rule ,rule]` with rules in the `Mm.w.d[/time]` form (the only one tzdata's zones use). */
function parsePosixTZ(name: string, tz: string, validFrom: i64): Zone | null {
  const c = new Cursor(tz);
  const stdAbbr = abbr(c);
  const stdOffset = -offset(c); // POSIX counts west of Greenwich as positive
  const zone = new Zone(name, stdOffset, stdAbbr, validFrom);
  if (c.peek() >= 0) {
    zone.dstAbbr = abbr(c);
    zone.dstOffset = c.peek() == 0x2c ? stdOffset + 3600 : -offset(c);
    if (!c.eat(0x2c)) return null;
    zone.dstStart = rule(c);
    if (!c.eat(0x2c)) return null;
    zone.dstEnd = rule(c);
  }
  return c.ok && c.peek() < 0 ? zone : null;
}

function abbr(c: Cursor): string {
  const begin = c.pos;
  if (c.eat(0x3c)) {
    while (c.peek() >= 0 && c.peek() != 0x3e) c.pos++;
    if (!c.eat(0x3e)) c.ok = false;
    return c.s.substring(begin + 1, c.pos - 1);
  }
  while ((c.peek() | 0x20) >= 0x61 && (c.peek() | 0x20) <= 0x7a) c.pos++;
  if (c.pos - begin < 3) c.ok = false;
  return c.s.substring(begin, c.pos);
}

/** `[+-]hh[:mm[:ss]]` in seconds. */
function offset(c: Cursor): i32 {
  let sign = 1;
  if (c.eat(0x2d)) sign = -1;
  else c.eat(0x2b);
  let secs = c.num() * 3600;
  if (c.eat(0x3a)) {
    secs += c.num() * 60;
    if (c.eat(0x3a)) secs += c.num();
  }
  return sign * secs;
}

function rule(c: Cursor): Rule {
  if (!c.eat(0x4d)) c.ok = false; // 'M'
  const month = c.num();
  if (!c.eat(0x2e)) c.ok = false;
  const week = c.num();
  if (!c.eat(0x2e)) c.ok = false;
  const wday = c.num();
  const time = c.eat(0x2f) ? offset(c) : 7200; // default 02:00:00
  if (month < 1 || month > 12 || week < 1 || week > 5 || wday > 6) c.ok = false;
  return new Rule(month, week, wday, time);
}
