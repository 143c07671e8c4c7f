/**
 * `rego test`: runs every `test_` rule like `opa test` (`todo_` rules are
 * skipped). Each test rule is compiled as an entrypoint and evaluated through
 * @open-policy-agent/opa-wasm; it passes when its value is `true`. One line
 * per failure with file:line, then `N passed, N failed` alone on the last line.
 */
import type { Module, Rule } from "../../pdp/compiler/ast";
import { compile } from "../../pdp/compiler";
import { loadSizedPolicy } from "../../pdp/compiler/bundle";
import { Catalogue } from "../../pdp/compiler/builtins";
import { EvaluationClock } from "../../pdp/compiler/host-builtins";
import { parseModule } from "../../pdp/compiler/parse";
import { maxMemoryPages, parseArgs, syntaxVersion, UsageError } from "../args";
import { collectPolicyInputs } from "../files";
import { CUSTOM_BUILTIN_FLAGS, customBuiltins, hostFunctions } from "./custom-builtins";

interface TestRule {
  entrypoint: string;
  name: string;
  file: string;
  row: number;
}

export async function testCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { switches: { "-v": "verbose", "--verbose": "verbose", "--v0-compatible": "v0" }, values: { "--max-memory-pages": "maxMemoryPages", ...CUSTOM_BUILTIN_FLAGS } });
  if (args.positionals.length === 0) throw new UsageError("no policy files or directories given");
  const { sources, data } = collectPolicyInputs(args.positionals);
  const custom = await customBuiltins(args);

  // Parse once to find the test rules, then compile with each as an entrypoint.
  const regoVersion = syntaxVersion(args);
  const catalogue = new Catalogue(custom.decls);
  const probe = sources.map((s) => parseModule(s.source, s.file, catalogue, s.regoVersion ?? regoVersion));
  const tests = findTests(probe);
  const skipped = countTodo(probe);
  if (tests.length === 0) {
    console.log(`0 passed, 0 failed${skipped ? `, ${skipped} skipped` : ""}`);
    return 0;
  }
  const compiled = compile(sources, { entrypoints: tests.map((t) => t.entrypoint), regoVersion, hostBuiltins: custom.decls });
  // Host builtins as the PDP dispatches them, plus the custom ones (--capabilities, --builtins).
  const clock = new EvaluationClock();
  const builtins = hostFunctions(custom, clock, compiled.policy.hostBuiltins.map((b) => b.name));
  const policy = await loadSizedPolicy(compiled.wasm, data, { maxPages: maxMemoryPages(args), builtins });

  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    let outcome: string;
    try {
      clock.tick();
      const rs = policy.evaluate(undefined, t.entrypoint) as Array<{ result: unknown }>;
      outcome = rs.length === 1 && rs[0].result === true ? "" : rs.length === 0 ? "undefined" : `got ${JSON.stringify(rs[0].result)}`;
    } catch (err) {
      outcome = `error: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (outcome === "") {
      passed++;
      if (args.switches.has("verbose")) console.log(`PASS ${t.file}:${t.row}: ${t.name}`);
    } else {
      failed++;
      console.log(`FAIL ${t.file}:${t.row}: ${t.name}: ${outcome}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  return failed === 0 ? 0 : 1;
}

function ruleName(rule: Rule): string | undefined {
  const head = rule.head.ref[0];
  return head && head.type === "var" && rule.head.ref.length === 1 && rule.head.args === null ? head.name : undefined;
}

function findTests(modules: Module[]): TestRule[] {
  const seen = new Set<string>();
  const out: TestRule[] = [];
  for (const m of modules) {
    for (const rule of m.rules) {
      const name = ruleName(rule);
      if (!name || !name.startsWith("test_")) continue;
      const entrypoint = [...m.package.path, name].join("/");
      if (seen.has(entrypoint)) continue; // several bodies of one test rule are one test
      seen.add(entrypoint);
      out.push({ entrypoint, name: `data.${[...m.package.path, name].join(".")}`, file: m.file, row: rule.loc.row });
    }
  }
  return out;
}

function countTodo(modules: Module[]): number {
  return modules.reduce((n, m) => n + m.rules.filter((r) => ruleName(r)?.startsWith("todo_")).length, 0);
}
