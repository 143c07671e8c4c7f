/**
 * Proleptic Gregorian calendar arithmetic on i64 day and second counts, the
 * ground floor of the time builtins. Days are counted from 1970-01-01 (day 0),
 * negative before it; every division floors, so instants before the epoch
 * split into fields the same way Go's `time` package splits them.
 *
 * Conversions follow Howard Hinnant's `days_from_civil` / `civil_from_days`
 * (400-year eras of 146097 days), which are exact for any year an i64 day
 * count can hold.
 */

export const NS_PER_SEC: i64 = 1_000_000_000;
export const SECS_PER_DAY: i64 = 86400;

/** Floor division (rounds towards minus infinity, unlike `/`). b > 0. */
export function floorDiv(a: i64, b: i64): i64 {
  const q = a / b;
  return a % b != 0 && a < 0 ? q - 1 : q;
}

/** Remainder of `floorDiv`, always in [0, b). b > 0. */
export function floorMod(a: i64, b: i64): i64 {
  const r = a % b;
  return r < 0 ? r + b : r;
}

export function isLeap(year: i64): bool {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

/** Number of days in month (1..12) of year. */
export function daysIn(month: i32, year: i64): i32 {
  if (month == 2) return isLeap(year) ? 29 : 28;
  if (month == 4 || month == 6 || month == 9 || month == 11) return 30;
  return 31;
}

/** Days since 1970-01-01 of year-month-day (month 1..12, day 1..31). */
export function daysFromCivil(year: i64, month: i32, day: i32): i64 {
  const y = month <= 2 ? year - 1 : year;
  const era = floorDiv(y, 400);
  const yoe = y - era * 400; // [0, 399]
  const mp = <i64>((month + 9) % 12); // March = 0, so the leap day ends the year
  const doy = (153 * mp + 2) / 5 + <i64>day - 1; // [0, 365]
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
  return era * 146097 + doe - 719468;
}

/** A calendar date; `yday` is the day of the year, 1..366. */
export class Civil {
  constructor(public year: i64, public month: i32, public day: i32, public yday: i32) {}
}

/** The calendar date of a day count (inverse of `daysFromCivil`). */
export function civilFromDays(days: i64): Civil {
  const z = days + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097; // [0, 146096]
  const yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; // [0, 399]
  const doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365], from March 1st
  const mp = (5 * doy + 2) / 153; // [0, 11]
  const day = <i32>(doy - (153 * mp + 2) / 5 + 1);
  const month = <i32>(mp < 10 ? mp + 3 : mp - 9);
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const yday = <i32>(days - daysFromCivil(year, 1, 1)) + 1;
  return new Civil(year, month, day, yday);
}

/** Day of the week of a day count: 0 = Sunday .. 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOfDays(days: i64): i32 {
  return <i32>floorMod(days + 4, 7);
}

const LONG_DAY_NAMES: string[] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const LONG_MONTH_NAMES: string[] = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

export function weekdayName(wday: i32): string {
  return LONG_DAY_NAMES[wday];
}

export function monthName(month: i32): string {
  return LONG_MONTH_NAMES[month - 1];
}

/** All long day names, Sunday first (the parser matches their prefixes too). */
export function dayNames(): string[] {
  return LONG_DAY_NAMES;
}

/** All long month names, January first. */
export function monthNames(): string[] {
  return LONG_MONTH_NAMES;
}
