/**
 * Loads OPA's conformance cases (YAML, format in
 * shared/rego-conformance/SOURCE.md) from a directory tree.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { packageRoot } from "..";

export interface ConformanceCase {
  /** Path of the YAML file, relative to the directory that was loaded. */
  file: string;
  /** The family: the directory holding the file (`aggregates`, `withkeyword`, ...). */
  family: string;
  note: string;
  query: string;
  modules: string[];
  data?: unknown;
  input?: unknown;
  /** Input written as Rego term text; wins over `input`. */
  inputTerm?: string;
  wantResult?: Array<Record<string, unknown>>;
  wantErrorCode?: string;
  wantError?: string;
  sortBindings: boolean;
  strictError: boolean;
}

/** Where OPA's cases live: `shared/` beside the Portcullis repository, which holds this package at packages/rego-wasm. */
const SHARED = () => path.join(packageRoot(), "..", "..", "..", "shared");

/** OPA's cases as the project receives them: `shared/rego-conformance/cases` beside the repository. */
export function conformanceCasesDir(): string {
  return path.join(SHARED(), "rego-conformance", "cases");
}

/** OPA's v0 variant of the same directories (`shared/rego-conformance-v0/cases`), run with `--v0-compatible`. */
export function conformanceV0CasesDir(): string {
  return path.join(SHARED(), "rego-conformance-v0", "cases");
}

/** One family's directory (`aggregates`, `jsonpatch`, ...) under conformanceCasesDir(). */
export function conformanceFamilyDir(family: string): string {
  return path.join(conformanceCasesDir(), "v1", "test", "cases", "testdata", "v1", family);
}

export function loadCases(dir: string): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const file of yamlFiles(dir)) {
    const doc = parseYaml(fs.readFileSync(file, "utf8"), { intAsBigInt: false }) as { cases?: unknown[] } | null;
    for (const raw of doc?.cases ?? []) {
      const c = raw as Record<string, unknown>;
      out.push({
        file: path.relative(dir, file),
        family: path.basename(path.dirname(file)),
        note: String(c.note ?? ""),
        query: String(c.query ?? ""),
        modules: (c.modules as string[] | undefined) ?? [],
        data: c.data,
        input: c.input,
        inputTerm: c.input_term as string | undefined,
        wantResult: c.want_result as Array<Record<string, unknown>> | undefined,
        wantErrorCode: c.want_error_code as string | undefined,
        wantError: c.want_error as string | undefined,
        sortBindings: c.sort_bindings === true,
        strictError: c.strict_error === true,
      });
    }
  }
  return out;
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...yamlFiles(full));
    else if (/\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out;
}
