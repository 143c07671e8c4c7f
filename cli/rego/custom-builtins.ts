/**
 * Custom builtins from the command line: `--capabilities caps.json` declares
 * them (OPA's capabilities JSON), `--builtins impl.mjs` implements them.
 *
 *   // caps.json (as `opa capabilities` writes it; only `builtins` is read)
 *   {"builtins": [{"name": "scanner.result",
 *                  "decl": {"type": "function", "args": [{"type": "string"}], "result": {"type": "object"}}}]}
 *   // impl.mjs: named exports (string export names may hold dots) and/or a default object
 *   export default { "scanner.result": (status) => ({ status }) };
 *
 * As in OPA, the file says which builtins a policy may call at all: a call
 * to one it does not list is `rego_type_error: undefined function` (start
 * from `opa capabilities --current` and add yours; leave `http.send` out to
 * keep it out of the policies). Entries whose name the compiler knows are
 * OPA's own and stay the compiler's; the others become host builtins of the compilation
 * (compile()'s `hostBuiltins`), checked for arity and literal operand types,
 * and dispatched by the module through `opa_builtinN` to the host, beside
 * the PDP's own host builtins (EvaluationClock), exactly as the PDP loads a
 * bundle. A call to a builtin declared nowhere stays a positioned
 * `rego_type_error: undefined function`.
 *
 * Refusals, each a clear error before anything runs: an implementation for a
 * name the capabilities do not declare as custom (a typo, or an attempt to
 * replace a standard builtin); `--builtins` without `--capabilities`; a
 * policy calling a declared builtin that no implementation supplies.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { type DeclaredType, EvaluationClock, type HostBuiltinDecl, invalidType, lookupBuiltin } from "@portcullis/rego-wasm";
import { one, type ParsedArgs, UsageError } from "../args";

export type BuiltinImpl = (...args: unknown[]) => unknown;

/** The flags, for each command's parseArgs spec. */
export const CUSTOM_BUILTIN_FLAGS = { "--capabilities": "capabilities", "--builtins": "builtins" } as const;

export interface CustomBuiltins {
  /** Custom builtins the capabilities file declares (compile()'s `hostBuiltins`). */
  decls: HostBuiltinDecl[];
  /** Every builtin name the capabilities file lists (compile()'s `capabilities`); undefined without one. */
  capabilities?: string[];
  /** Their implementations, by name. */
  impls: Map<string, BuiltinImpl>;
  capabilitiesFile?: string;
  builtinsFile?: string;
}

/** Names the compiler handles itself though they are no catalogue entries. */
const COMPILER_NAMES = new Set(["eq", "assign", "print", "internal.print", "and", "or"]);

/** Reads `--capabilities` and `--builtins` (none given: no custom builtins). */
export async function customBuiltins(args: ParsedArgs): Promise<CustomBuiltins> {
  const capabilitiesFile = one(args, "capabilities");
  const builtinsFile = one(args, "builtins");
  if (builtinsFile && !capabilitiesFile) throw new UsageError("--builtins needs --capabilities declaring the builtins it implements");
  const { decls, names } = capabilitiesFile ? readCapabilities(capabilitiesFile) : { decls: [], names: undefined };
  const impls = builtinsFile ? await readImplementations(builtinsFile) : new Map<string, BuiltinImpl>();
  const declared = new Set(decls.map((d) => d.name));
  for (const name of impls.keys()) {
    if (!declared.has(name)) {
      const why =
        lookupBuiltin(name) || COMPILER_NAMES.has(name) ? "a standard builtin, which a module may not replace" : `not declared in ${capabilitiesFile}`;
      throw new Error(`${builtinsFile}: implements ${JSON.stringify(name)}: ${why}`);
    }
  }
  return { decls, capabilities: names, impls, capabilitiesFile, builtinsFile };
}

/** The builtin names an OPA capabilities file lists, and the custom builtins among them. */
export function readCapabilities(file: string): { decls: HostBuiltinDecl[]; names: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `invalid JSON: ${(err as Error).message}`}`, {
      cause: err,
    });
  }
  const builtins = (parsed as { builtins?: unknown } | null)?.builtins;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !Array.isArray(builtins)) {
    throw new Error(`${file}: not an OPA capabilities file (an object with a "builtins" array)`);
  }
  const out: HostBuiltinDecl[] = [];
  const names: string[] = [];
  builtins.forEach((entry: unknown, i) => {
    const where = `${file}: builtins[${i}]`;
    const { name, decl, nondeterministic } = (entry ?? {}) as {
      name?: unknown;
      decl?: { type?: unknown; args?: unknown; variadic?: unknown };
      nondeterministic?: unknown;
    };
    if (typeof name !== "string") throw new Error(`${where}: "name" must be a string`);
    names.push(name);
    if (lookupBuiltin(name) || COMPILER_NAMES.has(name) || name.startsWith("internal.")) return; // OPA's own: the compiler's
    if (typeof decl !== "object" || decl === null || decl.type !== "function")
      throw new Error(`${where} (${name}): "decl" must be {"type": "function", "args": [...]}`);
    if (decl.variadic !== undefined) throw new Error(`${where} (${name}): variadic builtins cannot be hosted (the Wasm ABI passes 0 to 4 operands)`);
    const argTypes = decl.args ?? [];
    if (!Array.isArray(argTypes)) throw new Error(`${where} (${name}): "decl.args" must be an array of types`);
    if (argTypes.length > 4) throw new Error(`${where} (${name}): takes ${argTypes.length} operands; the Wasm ABI hosts at most 4`);
    const badType = argTypes.map(invalidType).find((e) => e !== null);
    if (badType) throw new Error(`${where} (${name}): ${badType}`);
    out.push({ name, arity: argTypes.length, args: argTypes as DeclaredType[], ...(nondeterministic === true ? { nondeterministic: true } : {}) });
  });
  return { decls: out, names };
}

/** The functions a JS module exports by builtin name: named exports, then a default object's entries. */
async function readImplementations(file: string): Promise<Map<string, BuiltinImpl>> {
  if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${file}: does not load: ${(err as Error).message}`, { cause: err });
  }
  const impls = new Map<string, BuiltinImpl>();
  const add = (name: string, value: unknown) => {
    if (typeof value !== "function") throw new Error(`${file}: export ${JSON.stringify(name)} is not a function`);
    if (impls.has(name) && impls.get(name) !== value) throw new Error(`${file}: ${JSON.stringify(name)} is exported twice`);
    impls.set(name, value as BuiltinImpl);
  };
  for (const [name, value] of Object.entries(mod)) if (name !== "default" && name !== "__esModule") add(name, value);
  const dflt = mod.default;
  if (dflt !== undefined) {
    if (typeof dflt !== "object" || dflt === null || Array.isArray(dflt))
      throw new Error(`${file}: the default export must be an object of builtin implementations`);
    for (const [name, value] of Object.entries(dflt)) add(name, value);
  }
  return impls;
}

/**
 * The host functions for `loadSizedPolicy`: the PDP's own (the clock's) and
 * the custom implementations. `used` (the module's host builtins, when the
 * command compiled it) must all be implemented; unknown for a prebuilt
 * bundle, where a declared builtin without implementation refuses when called.
 */
export function hostFunctions(custom: CustomBuiltins, clock: EvaluationClock, used?: string[]): Record<string, BuiltinImpl> {
  const missing = custom.decls.filter((d) => !custom.impls.has(d.name)).map((d) => d.name);
  const calledMissing = used ? missing.filter((name) => used.includes(name)) : [];
  if (calledMissing.length > 0) {
    const by = custom.builtinsFile ? `${custom.builtinsFile} does not export` : "no --builtins module implements";
    throw new Error(`custom builtin(s) ${calledMissing.join(", ")} declared in ${custom.capabilitiesFile} and called by the policy, but ${by} them`);
  }
  const out: Record<string, BuiltinImpl> = { ...clock.builtins(), ...Object.fromEntries(custom.impls) };
  for (const name of missing) {
    if (!(name in out)) {
      out[name] = () => {
        throw new Error(`custom builtin ${name} (declared in ${custom.capabilitiesFile}) has no implementation: pass --builtins`);
      };
    }
  }
  return out;
}
