/**
 * The JUnit writer: counts per suite and in total, failures with message and
 * body, skipped cases, and text that XML cannot hold as is (markup,
 * quotes, newlines in attributes, control characters, lone surrogates)
 * arrives intact or visibly escaped through a real XML parser.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeJUnit } from "../../report/junit";
import { all, parseXmlFile } from "./xml";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-junit-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("suites, cases, failures and skips are counted where CI servers read them", () => {
  const file = writeJUnit(path.join(dir, "nested", "a.xml"), {
    name: "demo",
    suites: [
      {
        name: "one",
        properties: { base_url: "http://x" },
        cases: [
          { name: "ok", classname: "one" },
          { name: "bad", classname: "one", failure: { type: "mismatch", message: "expected allow, got 403", body: "request: GET /x" } },
        ],
      },
      {
        name: "two",
        cases: [
          { name: "na", classname: "two", skipped: "does not apply" },
          { name: "ok2", classname: "two", time: 0.25 },
        ],
      },
    ],
  });
  const root = parseXmlFile(file);
  expect(root.tag).toBe("testsuites");
  expect(root.attrs).toMatchObject({ name: "demo", tests: "4", failures: "1", skipped: "1", errors: "0" });
  const suites = all(root, "testsuite");
  expect(suites.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.skipped])).toEqual([
    ["one", "2", "1", "0"],
    ["two", "2", "0", "1"],
  ]);
  expect(all(suites[0], "property")[0].attrs).toEqual({ name: "base_url", value: "http://x" });
  const failure = all(root, "failure")[0];
  expect(failure.attrs).toEqual({ type: "mismatch", message: "expected allow, got 403" });
  expect(failure.text).toBe("request: GET /x");
  expect(all(root, "skipped")[0].attrs.message).toBe("does not apply");
  expect(all(suites[1], "testcase")[1].attrs.time).toBe("0.250");
});

test("hostile text stays text: markup, quotes and newlines survive, characters XML forbids are shown escaped", () => {
  const nasty = `</failure><x a="1"> & 'q'\nline2\ttab \u0001\u001b[31m \ud800 end`;
  const file = writeJUnit(path.join(dir, "b.xml"), {
    name: nasty,
    suites: [{ name: nasty, cases: [{ name: nasty, classname: "c", failure: { type: "t", message: nasty, body: nasty } }] }],
  });
  const root = parseXmlFile(file);
  const shown = `</failure><x a="1"> & 'q'\nline2\ttab \\u0001\\u001b[31m \\ud800 end`;
  expect(root.attrs.name).toBe(shown);
  expect(all(root, "testcase")[0].attrs.name).toBe(shown);
  expect(all(root, "failure")[0].attrs.message).toBe(shown);
  expect(all(root, "failure")[0].text).toBe(shown);
  expect(all(root, "x")).toEqual([]);
});
