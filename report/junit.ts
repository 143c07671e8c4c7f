/**
 * JUnit XML for CI servers (Jenkins, GitLab, GitHub test reporters): the
 * de-facto schema those tools read (Ant's junit task / Surefire's
 * `testsuites > testsuite > testcase` with `failure`, `error` and `skipped`),
 * written by one small module so the matrix and `rego test` speak it alike.
 *
 *   writeJUnit("var/reports/matrix.xml", { name: "authorization matrix", suites: [
 *     { name: "GET invoices.get", cases: [{ name: "GET invoices.get v2 ... own", classname: "GET invoices.get" }] },
 *   ] });
 *
 * Everything written comes from reports whose text may carry what a client
 * or a policy sent (problem details, request paths), so every value is
 * escaped, and characters XML 1.0 cannot hold at all (control characters,
 * lone surrogates) are written as visible `\uXXXX` text instead of making
 * the file unreadable for the CI server.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface JUnitCase {
  name: string;
  classname: string;
  /** Seconds; omitted when unmeasured. */
  time?: number;
  /** A check that did not hold: `message` is one line, `body` the full story (expected, actual, request). */
  failure?: { message: string; type: string; body: string };
  /** Not run, with why (the matrix's n/a cells). */
  skipped?: string;
}

export interface JUnitSuite {
  name: string;
  cases: JUnitCase[];
  /** ISO time the suite ran. */
  timestamp?: string;
  properties?: Record<string, string>;
}

export interface JUnitReport {
  name: string;
  suites: JUnitSuite[];
}

export function junitXml(report: JUnitReport): string {
  const totals = count(report.suites.flatMap((s) => s.cases));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(report.name)}" tests="${totals.tests}" failures="${totals.failures}" errors="0" skipped="${totals.skipped}">`,
  ];
  report.suites.forEach((suite, id) => {
    const c = count(suite.cases);
    const time = suite.cases.reduce((sum, x) => sum + (x.time ?? 0), 0);
    lines.push(
      `  <testsuite id="${id}" name="${attr(suite.name)}" tests="${c.tests}" failures="${c.failures}" errors="0" skipped="${c.skipped}" time="${time.toFixed(3)}"` +
        `${suite.timestamp ? ` timestamp="${attr(suite.timestamp)}"` : ""}>`,
    );
    const props = Object.entries(suite.properties ?? {});
    if (props.length > 0) {
      lines.push("    <properties>", ...props.map(([k, v]) => `      <property name="${attr(k)}" value="${attr(v)}"/>`), "    </properties>");
    }
    for (const tc of suite.cases) {
      const open = `    <testcase name="${attr(tc.name)}" classname="${attr(tc.classname)}"${tc.time === undefined ? "" : ` time="${tc.time.toFixed(3)}"`}`;
      if (tc.failure) {
        lines.push(
          `${open}>`,
          `      <failure message="${attr(tc.failure.message)}" type="${attr(tc.failure.type)}">${text(tc.failure.body)}</failure>`,
          "    </testcase>",
        );
      } else if (tc.skipped !== undefined) {
        lines.push(`${open}>`, `      <skipped message="${attr(tc.skipped)}"/>`, "    </testcase>");
      } else {
        lines.push(`${open}/>`);
      }
    }
    lines.push("  </testsuite>");
  });
  lines.push("</testsuites>", "");
  return lines.join("\n");
}

/** Writes the file (creating its folder) and returns its path. */
export function writeJUnit(file: string, report: JUnitReport): string {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, junitXml(report));
  return file;
}

function count(cases: JUnitCase[]): { tests: number; failures: number; skipped: number } {
  return { tests: cases.length, failures: cases.filter((c) => c.failure).length, skipped: cases.filter((c) => !c.failure && c.skipped !== undefined).length };
}

/**
 * Characters XML 1.0 forbids anywhere (C0 controls but tab/newline/CR,
 * U+FFFE/U+FFFF, and unpaired surrogates), made visible as `\uXXXX`.
 */
function xmlSafe(s: string): string {
  return s.replace(
    // eslint-disable-next-line no-control-regex -- matching the characters XML cannot hold is the point
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

function text(s: string): string {
  return xmlSafe(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Attribute values: newlines and tabs too, which attribute normalisation would otherwise turn into spaces. */
function attr(s: string): string {
  return text(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}
