/**
 * Finding the tests of parsed modules as OPA's tester does, and preparing
 * the modules for them:
 *
 * - a test is a rule (not a function) whose head ref's ground prefix has a
 *   part starting `test_` (`test_allow`, `p.q.test_x`); `todo_test_` ones are
 *   reported as skipped;
 * - every rule is its own test: a second `test_x` in a package becomes
 *   `test_x#01`, a third `test_x#02` (OPA's rewriteDuplicateTestNames), so a
 *   failing body is not hidden by a passing one;
 * - a parameterized test (`test_concat[tc.note] if { some tc in cases ... }`,
 *   a partial object) gets `internal.test_case([tc.note])` injected after the
 *   first expressions that bind its key, unless it calls it itself (OPA's
 *   injectTestCaseFunc): the host records each case reached, so a case whose
 *   later expressions fail is reported as failed, not silently absent.
 */
import { type Expr, exprVars, internalCallExpr, type Module, type Rule, type Term, termVars } from "@portcullis/rego-wasm";

/** The host builtin a parameterized test calls with its case's key parts. */
export const TEST_CASE_BUILTIN = "internal.test_case";
const TEST_PREFIX = "test_";
const SKIP_PREFIX = "todo_test_";

export interface TestRule {
  /** `authz_test/test_x#01`: the entrypoint (and rule-tree path) it is compiled as. */
  entrypoint: string;
  /** `data.authz_test` */
  pkg: string;
  /** The head ref's ground prefix as OPA prints it: `test_x`, `p.q.test_x`, `test_x#01`. */
  name: string;
  file: string;
  row: number;
  col: number;
  skip: boolean;
  /** A partial object (`test_x[case]`): its cases are sub-results. */
  parameterized: boolean;
}

/** The tests of `modules`, renaming duplicates and injecting test-case calls in place. */
export function prepareTests(modules: Module[]): TestRule[] {
  const seen = new Map<string, number>();
  const out: TestRule[] = [];
  for (const m of modules) {
    for (const rule of m.rules) {
      if (rule.head.args !== null) continue;
      const prefix = groundPrefix(rule);
      const name = testName(prefix);
      if (name === null) continue;
      const skip = name.startsWith(SKIP_PREFIX);
      const key = [...m.package.path, ...prefix].join(".");
      const count = seen.get(key) ?? 0;
      seen.set(key, count + 1);
      if (count > 0 && !skip) renameLast(rule, prefix.length, `${prefix[prefix.length - 1]}#${String(count).padStart(2, "0")}`);
      // The test is the document at its name: a constant tail (`test_x["a"]`) is a case, as in OPA.
      const names = groundPrefix(rule).slice(0, prefix.length);
      const parameterized = rule.head.ref.length > prefix.length;
      if (parameterized && !skip) injectTestCase(rule, prefix.length);
      out.push({
        entrypoint: [...m.package.path, ...names].join("/"),
        pkg: `data.${m.package.path.join(".")}`,
        name: names.join("."),
        file: m.file,
        row: rule.loc.row,
        col: rule.loc.col,
        skip,
        parameterized,
      });
    }
  }
  return out;
}

/** The head ref's leading names: the rule's var, then string parts. */
function groundPrefix(rule: Rule): string[] {
  const out: string[] = [];
  for (const [i, t] of rule.head.ref.entries()) {
    if (i === 0 && t.type === "var") out.push(t.name);
    else if (i > 0 && t.type === "string") out.push(t.value);
    else break;
  }
  return out;
}

/** The first part of the prefix naming a test (or a skipped one), and so the prefix up to it; null when none does. */
function testName(prefix: string[]): string | null {
  const i = prefix.findIndex((n) => n.startsWith(TEST_PREFIX) || n.startsWith(SKIP_PREFIX));
  if (i < 0) return null;
  prefix.splice(i + 1);
  return prefix[i]!;
}

function renameLast(rule: Rule, prefixLength: number, name: string): void {
  const i = prefixLength - 1;
  const t = rule.head.ref[i]!;
  rule.head.ref[i] = t.type === "var" ? { ...t, name } : ({ ...t, type: "string", value: name } as Term);
}

/** `internal.test_case([<key parts>])` right after the first expressions mentioning every var of the key. */
function injectTestCase(rule: Rule, prefixLength: number): void {
  if (rule.body.some(callsTestCase)) return;
  const parts = rule.head.ref.slice(prefixLength);
  const keyVars = new Set<string>();
  parts.forEach((t) => termVars(t, keyVars));
  let below = -1;
  for (const v of keyVars) {
    const first = rule.body.findIndex((e) => exprVars(e, new Set()).has(v));
    below = Math.max(below, first);
  }
  const loc = rule.loc;
  rule.body.splice(below + 1, 0, internalCallExpr("test_case", [{ type: "array", items: parts, loc }], loc));
}

function callsTestCase(e: Expr): boolean {
  if (e.kind !== "term" || e.term.type !== "call") return false;
  const [head, ...rest] = e.term.op.terms;
  return head?.type === "var" && head.name === "internal" && rest.length === 1 && rest[0]!.type === "string" && rest[0]!.value === "test_case";
}
