/**
 * The named IANA zones this runtime knows, without a tz database: for each,
 * the POSIX TZ rule in force today (as in the zone's tzdata footer) and the
 * first UTC day from which that rule reproduces the zone's history. Earlier
 * instants are refused by `Zone.lookup` (the builtin becomes undefined).
 *
 * The dates are deliberately conservative (a little after the last change of
 * rules, e.g. the 2007 US daylight-time change, the 1996 EU harmonisation).
 * Adding a zone: one line, its footer rule from tzdata and the day after its
 * last change of offset or rules.
 */

// name -> "<POSIX TZ> <valid from YYYY-MM-DD>"
const ZONES: string[] = [
  // North America: US/Canada rules since 2007
  "America/New_York", "EST5EDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Detroit", "EST5EDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Toronto", "EST5EDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Chicago", "CST6CDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Winnipeg", "CST6CDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Denver", "MST7MDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Edmonton", "MST7MDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Phoenix", "MST7 1968-03-21",
  "America/Los_Angeles", "PST8PDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Vancouver", "PST8PDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Anchorage", "AKST9AKDT,M3.2.0,M11.1.0 2007-01-01",
  "America/Halifax", "AST4ADT,M3.2.0,M11.1.0 2007-01-01",
  "Pacific/Honolulu", "HST10 1948-01-01",
  "America/Mexico_City", "CST6 2022-11-01",
  // South America
  "America/Bogota", "<-05>5 1994-01-01",
  "America/Lima", "<-05>5 1995-01-01",
  "America/Sao_Paulo", "<-03>3 2019-03-01",
  "America/Argentina/Buenos_Aires", "<-03>3 2009-04-01",
  // Europe: EU rules since 1996 (1997 for the EET zones)
  "Europe/London", "GMT0BST,M3.5.0/1,M10.5.0 1996-01-01",
  "Europe/Lisbon", "WET0WEST,M3.5.0/1,M10.5.0 1997-01-01",
  "Europe/Paris", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Madrid", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Rome", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Amsterdam", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Brussels", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Vienna", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Zurich", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Stockholm", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Oslo", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Copenhagen", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Prague", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Warsaw", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Budapest", "CET-1CEST,M3.5.0,M10.5.0/3 1996-01-01",
  "Europe/Helsinki", "EET-2EEST,M3.5.0/3,M10.5.0/4 1997-01-01",
  "Europe/Athens", "EET-2EEST,M3.5.0/3,M10.5.0/4 1997-01-01",
  "Europe/Bucharest", "EET-2EEST,M3.5.0/3,M10.5.0/4 1997-01-01",
  "Europe/Kyiv", "EET-2EEST,M3.5.0/3,M10.5.0/4 1997-01-01",
  "Europe/Kiev", "EET-2EEST,M3.5.0/3,M10.5.0/4 1997-01-01",
  "Europe/Istanbul", "<+03>-3 2016-09-07",
  "Europe/Moscow", "MSK-3 2014-10-26",
  // Africa
  "Africa/Lagos", "WAT-1 1920-01-01",
  "Africa/Johannesburg", "SAST-2 1945-01-01",
  "Africa/Nairobi", "EAT-3 1943-01-01",
  // Asia
  "Asia/Dubai", "<+04>-4 1921-01-01",
  "Asia/Karachi", "PKT-5 2010-01-01",
  "Asia/Kolkata", "IST-5:30 1946-01-01",
  "Asia/Calcutta", "IST-5:30 1946-01-01",
  "Asia/Kathmandu", "<+0545>-5:45 1987-01-01",
  "Asia/Dhaka", "<+06>-6 2010-01-01",
  "Asia/Bangkok", "<+07>-7 1921-01-01",
  "Asia/Jakarta", "WIB-7 1965-01-01",
  "Asia/Shanghai", "CST-8 1992-01-01",
  "Asia/Hong_Kong", "HKT-8 1980-01-01",
  "Asia/Taipei", "CST-8 1980-01-01",
  "Asia/Singapore", "<+08>-8 1982-01-01",
  "Asia/Tokyo", "JST-9 1952-01-01",
  "Asia/Seoul", "KST-9 1989-01-01",
  // Oceania
  "Australia/Perth", "AWST-8 2009-04-01",
  "Australia/Adelaide", "ACST-9:30ACDT,M10.1.0,M4.1.0/3 2008-01-01",
  "Australia/Brisbane", "AEST-10 1993-01-01",
  "Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3 2008-01-01",
  "Australia/Melbourne", "AEST-10AEDT,M10.1.0,M4.1.0/3 2008-01-01",
  "Pacific/Auckland", "NZST-12NZDT,M9.5.0,M4.1.0/3 2007-04-01",
];

/** The spec of a named zone, or null when the table does not know it. */
export function zoneSpec(name: string): string | null {
  for (let i = 0; i < ZONES.length; i += 2) {
    if (ZONES[i] == name) return ZONES[i + 1];
  }
  return null;
}
