/**
 * time.* builtins (runtime/assembly/builtins/time/) through the runtime
 * harness. Expectations come from OPA's conformance cases (time/*.yaml), Go's
 * documented `time` behaviour, and JS's Date for plain UTC arithmetic.
 * Nanosecond results exceed 2^53, so they are compared as JSON text.
 */
import { loadRuntime, Runtime } from "../harness";

let rt: Runtime;
beforeAll(async () => {
  rt = await loadRuntime();
});
afterEach(() => rt.reset());

/** Argument: a JS value, or exact JSON text when given as `{ text }`. */
type Arg = unknown;
const text = (t: string) => ({ text: t });
const toValue = (a: Arg): number => (a !== null && typeof a === "object" && "text" in (a as object) ? rt.valueText((a as { text: string }).text) : rt.value(a));

/** Calls time.<name>; the result's JSON text, or undefined. */
function call(name: string, ...args: Arg[]): string | undefined {
  const r = rt.call(`bi_time_${name}`, ...args.map(toValue));
  return r === 0 ? undefined : rt.jsonText(r);
}

/** ns since the epoch of a UTC date, as decimal text. */
function ns(iso: string, extraNs = 0n): string {
  return (BigInt(Date.parse(iso)) * 1000000n + extraNs).toString();
}

describe("time.parse_rfc3339_ns", () => {
  test("conformance values, including both ends of the i64 range", () => {
    expect(call("parse_rfc3339_ns", "1677-09-21T00:12:43.145224192-00:00")).toBe("-9223372036854775808");
    expect(call("parse_rfc3339_ns", "1970-01-01T00:00:00-00:00")).toBe("0");
    expect(call("parse_rfc3339_ns", "2017-06-02T19:00:00-07:00")).toBe("1496455200000000000");
    expect(call("parse_rfc3339_ns", "2262-04-11T23:47:16.854775807-00:00")).toBe("9223372036854775807");
  });
  test("outside the i64 range is undefined", () => {
    expect(call("parse_rfc3339_ns", "1677-09-21T00:12:43.145224191-00:00")).toBeUndefined();
    expect(call("parse_rfc3339_ns", "2262-04-11T23:47:16.854775808-00:00")).toBeUndefined();
  });
  test("fractions and offsets", () => {
    expect(call("parse_rfc3339_ns", "2020-01-01T00:00:00.5Z")).toBe(ns("2020-01-01T00:00:00Z", 500000000n));
    expect(call("parse_rfc3339_ns", "2020-01-01T00:00:00,25Z")).toBe(ns("2020-01-01T00:00:00Z", 250000000n)); // Go accepts a comma
    expect(call("parse_rfc3339_ns", "2020-01-01T00:00:00.1234567891Z")).toBe(ns("2020-01-01T00:00:00Z", 123456789n)); // truncated
    expect(call("parse_rfc3339_ns", "2020-01-01T05:30:00+05:30")).toBe(ns("2020-01-01T00:00:00Z"));
  });
  test("Go's lenient cases (TestUnmarshalInvalidTimes) parse", () => {
    expect(call("parse_rfc3339_ns", "2000-01-01T1:12:34Z")).toBe(ns("2000-01-01T01:12:34Z"));
    expect(call("parse_rfc3339_ns", "2000-01-01T00:00:00,000Z")).toBe(ns("2000-01-01T00:00:00Z"));
    expect(call("parse_rfc3339_ns", "2000-01-01T00:00:00+24:00")).toBe(ns("1999-12-31T00:00:00Z"));
    expect(call("parse_rfc3339_ns", "2000-01-01T00:00:00+00:60")).toBe(ns("1999-12-31T23:00:00Z"));
    expect(call("parse_rfc3339_ns", "2000-01-01T00:00:00+123:45")).toBeUndefined();
  });
  test("malformed or mistyped input is undefined", () => {
    for (const bad of ["2020-01-01", "2020-01-01T00:00:00", "2020-02-30T00:00:00Z", "2020-01-01T24:00:00Z", "2020-01-01T00:00:00Zjunk", "x"]) {
      expect(call("parse_rfc3339_ns", bad)).toBeUndefined();
    }
    expect(call("parse_rfc3339_ns", 1)).toBeUndefined();
  });
});

describe("time.parse_ns", () => {
  test("conformance layouts", () => {
    const want = "1496455200000000000";
    expect(call("parse_ns", "2006-01-02T15:04:05Z07:00", "2017-06-02T19:00:00-07:00")).toBe(want);
    expect(call("parse_ns", "01/02 03:04:05PM '06 -0700", "06/02 07:00:00PM '17 -0700")).toBe(want);
    expect(call("parse_ns", "02 Jan 06 15:04 -0700", "02 Jun 17 19:00 -0700")).toBe(want);
    expect(call("parse_ns", "RFC822Z", "02 Jun 17 19:00 -0700")).toBe(want);
    expect(call("parse_ns", "2006-01-02T15:04:05Z07:00", "1677-09-21T00:12:43.145224191-00:00")).toBeUndefined();
  });
  test("named layouts and zone abbreviations (unknown to UTC: no offset, as in Go)", () => {
    const t = ns("2006-01-02T15:04:05Z");
    expect(call("parse_ns", "UnixDate", "Mon Jan  2 15:04:05 MST 2006")).toBe(t);
    expect(call("parse_ns", "ANSIC", "Mon Jan  2 15:04:05 2006")).toBe(t);
    expect(call("parse_ns", "RFC1123", "Mon, 02 Jan 2006 15:04:05 GMT")).toBe(t);
    expect(call("parse_ns", "RFC850", "Monday, 02-Jan-06 15:04:05 UTC")).toBe(t);
    expect(call("parse_ns", "RubyDate", "Mon Jan 02 22:04:05 +0700 2006")).toBe(t);
    expect(call("parse_ns", "RFC3339Nano", "2006-01-02T15:04:05.000000001Z")).toBe(ns("2006-01-02T15:04:05Z", 1n));
  });
  test("date-only, 12-hour clock, day of year, fractional layouts", () => {
    expect(call("parse_ns", "2006-01-02", "2020-02-29")).toBe(ns("2020-02-29T00:00:00Z"));
    expect(call("parse_ns", "2006-01-02", "2021-02-29")).toBeUndefined();
    expect(call("parse_ns", "2006-01-02 3:04PM", "2020-01-01 12:30AM")).toBe(ns("2020-01-01T00:30:00Z"));
    expect(call("parse_ns", "2006-01-02 3:04pm", "2020-01-01 12:30pm")).toBe(ns("2020-01-01T12:30:00Z"));
    expect(call("parse_ns", "2006 002", "2020 060")).toBe(ns("2020-02-29T00:00:00Z"));
    expect(call("parse_ns", "2006 __2", "2021  60")).toBe(ns("2021-03-01T00:00:00Z"));
    expect(call("parse_ns", "January 2, 2006 15:04:05.000", "march 5, 2020 10:11:12.345")).toBe(ns("2020-03-05T10:11:12.345Z"));
    expect(call("parse_ns", "15:04:05.000 2006-01-02", "10:11:12.34 2020-01-01")).toBeUndefined(); // .000 needs 3 digits
    expect(call("parse_ns", "2006-01-02 15:04:05", "2020-01-01 10:11:12.75")).toBe(ns("2020-01-01T10:11:12.750Z"));
    expect(call("parse_ns", "2006-01-02 15:04:05 -07:00:00", "2020-01-01 10:00:00 +01:30:15")).toBe(ns("2020-01-01T08:29:45Z"));
  });
  test("mismatches are undefined", () => {
    expect(call("parse_ns", "2006-01-02", "2020-01-02 extra")).toBeUndefined();
    expect(call("parse_ns", "Jan 2 2006", "Foo 2 2020")).toBeUndefined();
    expect(call("parse_ns", "2006-01-02", 5)).toBeUndefined();
  });
});

describe("time.parse_duration_ns", () => {
  test.each([
    ["100ms", "100000000"],
    ["1h2m3.5s", "3723500000000"],
    ["-1.5h", "-5400000000000"],
    ["+300us", "300000"],
    ["1\u00b5s", "1000"],
    ["1\u03bcs", "1000"],
    ["0", "0"],
    ["-0", "0"],
    [".5s", "500000000"],
    ["1.s", "1000000000"],
    ["1.0000000001h", "3600000000360"],
    ["9223372036854775807ns", "9223372036854775807"],
    ["-9223372036854775808ns", "-9223372036854775808"],
    // from Go's time_test.go: overflow edges and long fractions
    ["-9223372036854775.808us", "-9223372036854775808"],
    ["-9223372036s854ms775us808ns", "-9223372036854775808"],
    ["-2562047h47m16.854775808s", "-9223372036854775808"],
    ["0.100000000000000000000h", "360000000000"],
    ["0.830103483285477580700h", "2988372539827"],
    ["1h2m3s4ms5us6ns", "3723004005006"],
    ["10.5s4m", "250500000000"],
    ["-2m3.4s", "-123400000000"],
    ["39h9m14.425s", "140954425000000"],
    ["0.3333333333333333333h", "1200000000000"],
    ["9007199254740993ns", "9007199254740993"],
    ["9223372036854775.807us", "9223372036854775807"],
    ["9223372036s854ms775us807ns", "9223372036854775807"],
  ])("%s", (d, want) => {
    expect(call("parse_duration_ns", d)).toBe(want);
  });
  test.each([
    "",
    "1",
    "1d",
    ".s",
    "-",
    "s",
    ".",
    "-.",
    "+.s",
    "1h-2m",
    "3000000h",
    "9223372036854775808ns",
    "9223372036854775810ns",
    "-9223372036854775809ns",
    "9223372036854776us",
    "9223372036854775.808us",
    "9223372036854ms775us808ns",
  ])("%s is undefined", (d) => {
    expect(call("parse_duration_ns", d)).toBeUndefined();
  });
});

describe("time.date / time.clock / time.weekday", () => {
  test("conformance values", () => {
    expect(call("date", 1517814000000000000)).toBe("[2018,2,5]");
    expect(call("date", [1517814000000000000, "America/Los_Angeles"])).toBe("[2018,2,4]");
    expect(call("date", [1517832000000000000, ""])).toBe("[2018,2,5]");
    expect(call("date", 1582977600000000000)).toBe("[2020,2,29]");
    expect(call("clock", 1517832000000000000)).toBe("[12,0,0]");
    expect(call("clock", [1517832000000000000, "America/New_York"])).toBe("[7,0,0]");
    expect(call("clock", 1582977600000000000)).toBe("[12,0,0]");
    const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
    days.forEach((d, i) => expect(call("weekday", 1517832000000000000 + i * 86400e9)).toBe(JSON.stringify(d)));
  });
  test("timestamps that are not exact i64 integers are undefined ('timestamp too big')", () => {
    expect(call("date", 1582977600e12)).toBeUndefined();
    expect(call("clock", 1582977600e12)).toBeUndefined();
    expect(call("weekday", 1582977600e15)).toBeUndefined();
    expect(call("date", 1.5)).toBeUndefined();
    expect(call("date", text("9223372036854775808"))).toBeUndefined();
  });
  test("exact big operands and instants before 1970", () => {
    expect(call("date", text("9223372036854775807"))).toBe("[2262,4,11]");
    expect(call("clock", text("-9223372036854775808"))).toBe("[0,12,43]");
    expect(call("date", -1)).toBe("[1969,12,31]");
    expect(call("clock", -1)).toBe("[23,59,59]");
    expect(call("weekday", -1)).toBe('"Wednesday"');
    expect(call("date", 1e18)).toBe("[2001,9,9]");
    // long literals keep their text; an exponent or zero fraction is still an exact integer
    expect(call("date", text("1517814000000000000000e-3"))).toBe("[2018,2,5]");
    expect(call("date", text("15178140000000000.00000e+2"))).toBe("[2018,2,5]");
    expect(call("date", text("1517814000000000000.0000001"))).toBeUndefined();
  });
  test("operand shapes", () => {
    expect(call("date", [0])).toBe("[1970,1,1]");
    expect(call("date", [0, "Local"])).toBe("[1970,1,1]"); // Local is UTC here
    expect(call("date", [0, "UTC", "ignored"])).toBe("[1970,1,1]");
    expect(call("date", [])).toBeUndefined();
    expect(call("date", ["0"])).toBeUndefined();
    expect(call("date", [0, 1])).toBeUndefined();
    expect(call("date", "0")).toBeUndefined();
  });
});

describe("zones", () => {
  const t = (iso: string) => Number(ns(iso)); // exact for whole seconds
  test("daylight time switches at the rule's instant (US 2018: Mar 11 2:00, Nov 4 2:00)", () => {
    expect(call("clock", [t("2018-03-11T09:59:59Z"), "America/Los_Angeles"])).toBe("[1,59,59]");
    expect(call("clock", [t("2018-03-11T10:00:00Z"), "America/Los_Angeles"])).toBe("[3,0,0]");
    expect(call("clock", [t("2018-11-04T08:59:59Z"), "America/Los_Angeles"])).toBe("[1,59,59]");
    expect(call("clock", [t("2018-11-04T09:00:00Z"), "America/Los_Angeles"])).toBe("[1,0,0]");
  });
  test("southern hemisphere and EU rules", () => {
    expect(call("clock", [t("2020-01-15T00:00:00Z"), "Australia/Sydney"])).toBe("[11,0,0]");
    expect(call("clock", [t("2020-07-15T00:00:00Z"), "Australia/Sydney"])).toBe("[10,0,0]");
    expect(call("clock", [t("2021-03-28T00:59:59Z"), "Europe/Berlin"])).toBe("[1,59,59]");
    expect(call("clock", [t("2021-03-28T01:00:00Z"), "Europe/Berlin"])).toBe("[3,0,0]");
    expect(call("clock", [t("2021-10-31T00:59:59Z"), "Europe/London"])).toBe("[1,59,59]");
    expect(call("clock", [t("2021-10-31T01:00:00Z"), "Europe/London"])).toBe("[1,0,0]");
  });
  test("Etc/GMT zones have POSIX signs", () => {
    expect(call("clock", [0, "Etc/GMT+5"])).toBe("[19,0,0]");
    expect(call("format", [0, "Etc/GMT-14", "15:04 MST -07:00"])).toBe('"14:00 +14 +14:00"');
    expect(call("clock", [0, "Etc/GMT+13"])).toBeUndefined();
  });
  test("unknown zones and instants before a zone's table entry are undefined", () => {
    expect(call("date", [0, "Mars/Olympus_Mons"])).toBeUndefined();
    expect(call("date", [0, "America/Los_Angeles"])).toBeUndefined(); // rules valid from 2007 only
    expect(call("date", [0, "Asia/Tokyo"])).toBe("[1970,1,1]");
  });
});

describe("time.format", () => {
  test("conformance values", () => {
    expect(call("format", text("1670006453141828752"))).toBe('"2022-12-02T18:40:53.141828752Z"');
    const kolkata = (layout?: string) =>
      rt.jsonText(rt.call("bi_time_format", rt.valueText(`[1670006453141828752, "Asia/Kolkata"${layout === undefined ? "" : `, ${JSON.stringify(layout)}`}]`)));
    expect(kolkata()).toBe('"2022-12-03T00:10:53.141828752+05:30"');
    expect(kolkata("Mon Jan 02 15:04:05 -0700 2006")).toBe('"Sat Dec 03 00:10:53 +0530 2022"');
    expect(kolkata("RFC1123Z")).toBe('"Sat, 03 Dec 2022 00:10:53 +0530"');
    expect(call("format", 1582977600 * 10e12)).toBeUndefined();
  });
  test("layout elements", () => {
    const t = Number(ns("2020-03-05T07:08:09Z")) + 120000000; // .12
    expect(call("format", [t, "UTC", "Monday, January 2, 2006 3:04:05.000 pm"])).toBe('"Thursday, March 5, 2020 7:08:09.120 am"');
    expect(call("format", [t, "UTC", "Mon Jan _2 06 __2 002 15h04m05s.999 .9 ,000000"])).toBe('"Thu Mar  5 20  65 065 07h08m09s.12 .1 ,120000"');
    expect(call("format", [t, "", "RFC3339"])).toBe('"2020-03-05T07:08:09Z"');
    expect(call("format", [t, "", ""])).toBe('"2020-03-05T07:08:09.12Z"');
    expect(call("format", [t, "UTC", "MST Z07 Z0700 -07 -0700 -07:00:00"])).toBe('"UTC Z Z +00 +0000 +00:00:00"');
    expect(call("format", [t, "America/New_York", "UnixDate"])).toBe('"Thu Mar  5 02:08:09 EST 2020"');
    expect(call("format", [t, "America/New_York", "Z07:00 -07"])).toBe('"-05:00 -05"');
    expect(call("format", [t, "UTC", "no elements here!"])).toBe('"no elements here!"');
  });
  test("mistyped operands are undefined", () => {
    expect(call("format", [0, "UTC", 1])).toBeUndefined();
    expect(call("format", "x")).toBeUndefined();
  });
});

describe("time.add_date", () => {
  test("conformance values", () => {
    expect(call("add_date", 1585852421593912000, 3, 9, 12)).toBe("1705257221593912000");
    expect(call("add_date", 1585852421593912000, -1, -1, -1)).toBe("1551465221593912000");
    expect(call("add_date", 0, 2262, 1, 1)).toBeUndefined();
    expect(call("add_date", text("-9223372036854775808"), 0, 0, -1)).toBeUndefined();
  });
  test("normalises like Go's AddDate", () => {
    expect(call("add_date", Number(ns("2020-10-31T00:00:00Z")), 0, 1, 0)).toBe(ns("2020-12-01T00:00:00Z"));
    expect(call("add_date", Number(ns("2021-01-31T00:00:00Z")), 0, 1, 0)).toBe(ns("2021-03-03T00:00:00Z"));
    expect(call("add_date", Number(ns("2020-02-29T00:00:00Z")), 1, 0, 0)).toBe(ns("2021-03-01T00:00:00Z"));
    expect(call("add_date", Number(ns("2020-01-01T00:00:00Z")), 0, -13, 0)).toBe(ns("2018-12-01T00:00:00Z"));
    expect(call("add_date", Number(ns("2020-01-01T00:00:00Z")), 0, 0, 366)).toBe(ns("2021-01-01T00:00:00Z"));
    expect(call("add_date", Number(ns("2020-01-01T00:00:00Z")), 1000000, -12000000, 0)).toBe(ns("2020-01-01T00:00:00Z"));
  });
  test.each([
    [4, 4, 1],
    [3, 16, 1],
    [3, 15, 30],
    [5, -6, -18 - 30 - 12],
  ])("Go's addDateTests: 2011-11-18T07:56:35Z + (%d, %d, %d) = 2016-03-19T07:56:35Z", (y, m, d) => {
    expect(call("add_date", Number(ns("2011-11-18T07:56:35Z")), y, m, d)).toBe(ns("2016-03-19T07:56:35Z"));
  });
  // Go's dateTests (run with Local = America/Los_Angeles), reached through AddDate's call of Date.
  test.each([
    ["2011-11-05T08:00:00Z", 1320566400], // Nov 6 1:00 is ambiguous: the first (PDT) one
    ["2011-11-05T08:59:59Z", 1320569999], // 1:59:59 PDT
    ["2011-11-05T09:00:00Z", 1320573600], // 2:00:00 PST
    ["2011-03-12T09:00:00Z", 1300006800], // Mar 13 1:00:00 PST
    ["2011-03-12T09:59:59Z", 1300010399], // 1:59:59 PST
    ["2011-03-12T11:00:00Z", 1300010400], // 3:00:00 PDT
    ["2011-03-12T10:30:00Z", 1300008600], // 2:30 does not exist: 2:30 PDT = 1:30 PST
  ])("Go's dateTests: wall clock of %s in Los Angeles, one day later", (from, unix) => {
    expect(call("add_date", [Number(ns(from)), "America/Los_Angeles"], 0, 0, 1)).toBe(String(BigInt(unix) * 1000000000n));
  });
  test("keeps the wall clock across a daylight-time change", () => {
    // 2018-03-10 12:00 EST + 1 day = 2018-03-11 12:00 EDT: 23 hours later
    expect(call("add_date", [Number(ns("2018-03-10T17:00:00Z")), "America/New_York"], 0, 0, 1)).toBe(ns("2018-03-11T16:00:00Z"));
  });
  test("non-integer counts are undefined", () => {
    expect(call("add_date", 0, 1.5, 0, 0)).toBeUndefined();
    expect(call("add_date", 0, 0, "1", 0)).toBeUndefined();
  });
});

describe("time.diff", () => {
  const day = (s: string) => call("parse_ns", "2006-01-02", s)!;
  const diff = (a: string, b: string) => rt.jsonText(rt.call("bi_time_diff", rt.valueText(a), rt.valueText(b)));
  test("conformance values", () => {
    expect(call("diff", 61e9, 0)).toBe("[0,0,0,0,1,1]");
    expect(call("diff", [60e9, "UTC"], [0, "Asia/Shanghai"])).toBe("[0,0,0,0,1,0]");
    expect(diff(day("2020-02-02"), day("2020-03-01"))).toBe("[0,0,28,0,0,0]");
    expect(diff(day("2021-02-02"), day("2021-03-01"))).toBe("[0,0,27,0,0,0]");
    expect(diff(day("2004-02-29"), day("2005-03-01"))).toBe("[1,0,1,0,0,0]");
  });
  test("order of operands does not matter", () => {
    expect(diff(day("2005-03-01"), day("2004-02-29"))).toBe("[1,0,1,0,0,0]");
  });
  test("read in the first operand's zone", () => {
    // 2020-01-31T20:00Z .. 2020-02-01T04:00Z: in Tokyo (+9) that is Feb 1 05:00 .. Feb 1 13:00
    const a = `[${ns("2020-01-31T20:00:00Z")}, "Asia/Tokyo"]`;
    expect(diff(a, ns("2020-02-01T04:00:00Z"))).toBe("[0,0,0,8,0,0]");
  });
});

/** Tables from Go's own src/time/format_test.go (Go runs them with Local = America/Los_Angeles). */
describe("Go's format_test.go tables", () => {
  test.each([
    ["ANSIC", "Wed Feb  4 21:00:57 2009"],
    ["UnixDate", "Wed Feb  4 21:00:57 PST 2009"],
    ["RubyDate", "Wed Feb 04 21:00:57 -0800 2009"],
    ["RFC822", "04 Feb 09 21:00 PST"],
    ["RFC850", "Wednesday, 04-Feb-09 21:00:57 PST"],
    ["RFC1123", "Wed, 04 Feb 2009 21:00:57 PST"],
    ["RFC1123Z", "Wed, 04 Feb 2009 21:00:57 -0800"],
    ["RFC3339", "2009-02-04T21:00:57-08:00"],
    ["RFC3339Nano", "2009-02-04T21:00:57.0123456-08:00"],
    ["3:04PM", "9:00PM"],
    ["3pm", "9pm"],
    ["3PM", "9PM"],
    ["06 01 02", "09 02 04"],
    ["Hi Janet, the Month is January", "Hi Janet, the Month is February"],
    ["Jan _2 15:04:05", "Feb  4 21:00:57"],
    ["Jan _2 15:04:05.000", "Feb  4 21:00:57.012"],
    ["Jan _2 15:04:05.000000", "Feb  4 21:00:57.012345"],
    ["Jan _2 15:04:05.000000000", "Feb  4 21:00:57.012345600"],
    ["Jan  2 002 __2 2", "Feb  4 035  35 4"],
  ])("format %s", (layout, want) => {
    expect(call("format", [1233810057012345600, "America/Los_Angeles", layout])).toBe(JSON.stringify(want));
  });

  test.each([
    ["Mon Jan _2 15:04:05 2006", "Thu Feb  4 21:00:57 2010"],
    ["Mon Jan _2 15:04:05 MST 2006", "Thu Feb  4 21:00:57 PST 2010"],
    ["Mon Jan 02 15:04:05 -0700 2006", "Thu Feb 04 21:00:57 -0800 2010"],
    ["Monday, 02-Jan-06 15:04:05 MST", "Thursday, 04-Feb-10 21:00:57 PST"],
    ["Mon, 02 Jan 2006 15:04:05 MST", "Thu, 04 Feb 2010 22:00:57 PDT"],
    ["2006-01-02 15:04:05-07", "2010-02-04 21:00:57-08"],
    ["Mon Jan _2 15:04:05 2006", "Thu Feb  4 21:00:57.0 2010"],
    ["Monday, 02-Jan-06 15:04:05 MST", "Thursday, 04-Feb-10 21:00:57.0123 PST"],
    ["2006-01-02 15:04:05", "2010-02-04 21:00:57.0"],
    ["Mon Jan _2 15:04:05 2006", "Thu      Feb     4     21:00:57     2010"],
    ["Mon Jan _2 15:04:05 2006", "THU FEB 4 21:00:57 2010"],
    ["Mon Jan _2 15:04:05,000 2006", "Thu Feb  4 21:00:57.012 2010"],
    ["2006.01.02.15.04.05.0", "2010.02.04.21.00.57.0"],
    ["2006.01.02.15.04.05.00", "2010.02.04.21.00.57.01"],
    ["Hi Janet, the Month is January: Jan _2 15:04:05 2006", "Hi Janet, the Month is February: Feb  4 21:00:57 2010"],
    ["Mon Jan _2 15:04:05 MST 2006", "Fri Feb  5 05:00:57 GMT-8 2010"],
    ["2006-01-02 15:04:05,999999999 -0700 MST", "2010-02-04 21:00:57.0123 -0800 PST"],
    ["2006-01-02 002 15:04:05", "2010-02-04 035 21:00:57"],
    ["2006-01 002 15:04:05", "2010-02 035 21:00:57"],
    ["2006-002 15:04:05", "2010-035 21:00:57"],
    ["200600201 15:04:05", "201003502 21:00:57"],
    ["200600204 15:04:05", "201003504 21:00:57"],
  ])("parse %s <- %s", (layout, value) => {
    expect(call("parse_ns", layout, value)).toBeDefined();
  });

  test("parsed instants (numeric offsets shift; abbreviations unknown to UTC do not)", () => {
    const pst = ns("2010-02-05T05:00:57Z");
    expect(call("parse_ns", "RubyDate", "Thu Feb 04 21:00:57 -0800 2010")).toBe(pst);
    expect(call("parse_ns", "2006-01-02 15:04:05-07", "2010-02-04 21:00:57-08")).toBe(pst);
    expect(call("parse_ns", "RFC3339", "2010-02-04T21:00:57.012345678-08:00")).toBe(ns("2010-02-05T05:00:57Z", 12345678n));
    expect(call("parse_ns", "UnixDate", "Thu Feb  4 21:00:57 PST 2010")).toBe(ns("2010-02-04T21:00:57Z"));
    expect(call("parse_ns", "UnixDate", "Fri Feb  5 05:00:57 GMT-8 2010")).toBe(ns("2010-02-05T05:00:57Z"));
    // No year in the layout means year 0, outside the range of i64 nanoseconds.
    expect(call("parse_ns", "Jan _2 15:04:05.999", "Feb  4 21:00:57.012345678")).toBeUndefined();
  });

  test.each([
    ["Thu Jan 99 21:00:57 2010", false],
    ["Thu Jan 31 21:00:57 2010", true],
    ["Thu Jan 32 21:00:57 2010", false],
    ["Thu Feb 29 21:00:57 2012", true],
    ["Thu Feb 29 21:00:57 2010", false],
    ["Thu Apr 31 21:00:57 2010", false],
    ["Thu Dec 31 21:00:57 2010", true],
    ["Thu Dec 00 21:00:57 2010", false],
  ])("ANSIC day range %s", (value, ok) => {
    expect(call("parse_ns", "ANSIC", value) !== undefined).toBe(ok);
  });
});
