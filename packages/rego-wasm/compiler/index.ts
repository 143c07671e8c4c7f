/**
 * The compiler as one visible pipeline: parse -> check -> plan -> emit.
 *
 *   const { wasm } = compile([{ file: "authz.rego", source }], { entrypoints: ["authz/allow"] });
 *
 * Each stage throws CompileErrors with file:row:col and a stable code; the
 * intermediate forms (AST, IR) are returned for the CLI's `rego plan`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Body, Module } from "./ast";
import { Catalogue, type HostBuiltinDecl } from "./builtins";
import { check } from "./check";
import { link } from "./emit/link";
import { instrumentProgram, PROBE_BUILTIN, type Probe } from "./instrument";
import { parseModule, parseQuery, type SyntaxVersion } from "./parse";
import { plan } from "./plan";
import type { Policy } from "./plan/ir";

export interface SourceFile {
  file: string;
  source: string;
  /** This file's syntax when it differs from the compilation's (a bundle's `file_rego_versions`). */
  regoVersion?: SyntaxVersion;
}

export type { HostBuiltinDecl } from "./builtins";
export type { SyntaxVersion } from "./parse";
export type { Probe } from "./instrument";
export type { TrailBody } from "./trail";

/** A rule or package path (`authz/allow`), or a named query compiled as its own entrypoint. */
export type EntrypointSpec = string | { name: string; query: string };

export interface CompileOptions {
  entrypoints: EntrypointSpec[];
  /** The linked runtime; read from build/runtime.wasm when absent. */
  runtimeWasm?: Uint8Array;
  /**
   * Builtins the host supplies beyond the catalogue (the npm SDK's
   * `customBuiltins`, OPA's `rego.Function*`): policies may call them, and
   * the module dispatches each call to the host via `opa_builtinN`, listing
   * the names it uses in its `builtins` export. Catalogue names are refused.
   */
  hostBuiltins?: HostBuiltinDecl[];
  /**
   * OPA's capabilities (`--capabilities`): every builtin name the file
   * lists. When given, a policy may call only these and `hostBuiltins`;
   * any other builtin is `rego_type_error: undefined function`.
   */
  capabilities?: string[];
  /**
   * The syntax of files that do not say (SourceFile.regoVersion): "v1" by
   * default, "v0" as OPA 1.x's `--v0-compatible`. Also the syntax of query
   * entrypoints. A v0 file importing `rego.v1` follows v1's rules too.
   */
  regoVersion?: SyntaxVersion;
  /**
   * Test compilations only (`rego test`): probes before every expression and
   * after every rule body, calling the host builtin `internal.probe` (see
   * ./instrument.ts). Their table is the result's `probes`.
   */
  instrument?: boolean;
  /**
   * Pick the rules of a node by a lookup on the input (OPA's rule index,
   * see plan/rule-index.ts) instead of trying each in turn. On by default;
   * `false` plans every rule in turn (to compare the two).
   */
  ruleIndex?: boolean;
  /**
   * The decision trail (./trail.ts): the module records which rule bodies
   * succeeded in each evaluation, for explanations in every decision. On
   * unless false; off, the module is exactly OPA's ABI.
   */
  trail?: boolean;
}

export interface CompileResult {
  modules: Module[];
  policy: Policy;
  wasm: Uint8Array;
  /** With `instrument`: each probe's id, position and kind. */
  probes?: Probe[];
}

export function compile(sources: SourceFile[], options: CompileOptions): CompileResult {
  const builtins = catalogueFor(options);
  const version = options.regoVersion ?? "v1";
  const modules = sources.map((s) => parseModule(s.source, s.file, builtins, s.regoVersion ?? version));
  return compileModules(modules, options);
}

/** The catalogue a compilation with these options parses and checks against. */
export function catalogueFor(options: Pick<CompileOptions, "hostBuiltins" | "instrument" | "capabilities">): Catalogue {
  const probe: HostBuiltinDecl[] = options.instrument ? [{ name: PROBE_BUILTIN, arity: 1 }] : [];
  return new Catalogue([...(options.hostBuiltins ?? []), ...probe], options.capabilities && new Set(options.capabilities));
}

/** The stages after parsing, for callers that prepare the parsed modules first (`rego test`). */
export function compileModules(modules: Module[], options: CompileOptions): CompileResult {
  const builtins = catalogueFor(options);
  const program = check(modules, builtins);
  const probes = options.instrument ? instrumentProgram(program) : undefined;
  const entrypoints = options.entrypoints.map((spec) => toEntrypoint(spec, options.regoVersion ?? "v1"));
  const policy = plan(program, entrypoints, { ruleIndex: options.ruleIndex ?? true, trail: options.trail });
  const wasm = link(policy, options.runtimeWasm ?? loadRuntimeWasm());
  return { modules, policy, wasm, ...(probes ? { probes } : {}) };
}

function toEntrypoint(spec: EntrypointSpec, version: SyntaxVersion): { name: string; path?: string[]; query?: Body } {
  if (typeof spec === "string") {
    const name = spec.replace(/^data\//, "").replace(/^\/+/, "");
    const pathParts = name === "" || name === "data" ? [] : name.split("/");
    return { name, path: pathParts };
  }
  return { name: spec.name, query: parseQuery(spec.query, `<entrypoint ${spec.name}>`, version) };
}

let cachedRuntime: Uint8Array | undefined;

/** The prebuilt runtime (`make build` writes it); cached for the process. */
export function loadRuntimeWasm(): Uint8Array {
  if (cachedRuntime) return cachedRuntime;
  const file = path.join(packageRoot(), "build", "runtime.wasm");
  if (!fs.existsSync(file)) {
    throw new Error(`policy runtime not built: ${file} is missing (run \`make build\`)`);
  }
  cachedRuntime = fs.readFileSync(file);
  return cachedRuntime;
}

/** This package's root (packages/rego-wasm: package.json, build/runtime.wasm), found from this file whether it runs from source or from dist/. */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: unknown }).name === "@portcullis/rego-wasm") return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find the @portcullis/rego-wasm package root");
    dir = parent;
  }
}
