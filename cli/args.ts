/**
 * A small argv parser: `--flag value`, `-f value`, repeated flags collect
 * into lists, `--bool` switches, and positionals. Unknown flags are errors,
 * so a typo never silently changes what a command does.
 */
import { MAX_MEMORY_PAGES } from "@portcullis/rego-wasm";

export interface ArgSpec {
  /** Flags that take a value, by every spelling: { "-e": "entrypoint", "--entrypoint": "entrypoint" }. */
  values?: Record<string, string>;
  /** Flags without a value. */
  switches?: Record<string, string>;
}

export interface ParsedArgs {
  values: Map<string, string[]>;
  switches: Set<string>;
  positionals: string[];
}

/** A command line the command cannot run (unknown flag, missing value); the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  readonly code = "CLI_USAGE";
  override readonly name = "UsageError";
}

export function parseArgs(argv: string[], spec: ArgSpec): ParsedArgs {
  const out: ParsedArgs = { values: new Map(), switches: new Set(), positionals: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (spec.values && flag in spec.values) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      const name = spec.values[flag];
      out.values.set(name, [...(out.values.get(name) ?? []), value]);
    } else if (spec.switches && flag in spec.switches) {
      out.switches.add(spec.switches[flag]);
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      out.positionals.push(arg);
    }
  }
  return out;
}

export function one(args: ParsedArgs, name: string): string | undefined {
  const v = args.values.get(name);
  if (v && v.length > 1) throw new UsageError(`--${name} given more than once`);
  return v?.[0];
}

/** `--max-memory-pages N`: the policy module's memory limit in 64 KiB pages (undefined: the 1 GiB ceiling). */
export function maxMemoryPages(args: ParsedArgs): number | undefined {
  const text = one(args, "maxMemoryPages");
  if (text === undefined) return undefined;
  const pages = Number(text);
  if (!Number.isInteger(pages) || pages < 1 || pages > MAX_MEMORY_PAGES)
    throw new UsageError(`--max-memory-pages must be a whole number from 1 to ${MAX_MEMORY_PAGES}, got ${text}`);
  return pages;
}

/**
 * Flags that set configuration settings (`--db` -> `database.file`), in the
 * shape loadConfig reads; each named `--<name>`, given at most once.
 */
export function flagsOf(args: ParsedArgs, settings: Record<string, string>): Array<{ path: string; flag: string; value: string }> {
  return Object.entries(settings).flatMap(([name, path]) => {
    const value = one(args, name);
    return value === undefined ? [] : [{ path, flag: `--${name}`, value }];
  });
}

/** `--v0-compatible`: files whose bundle manifest does not say are Rego v0 (OPA 1.x's flag). */
export function syntaxVersion(args: ParsedArgs): "v0" | "v1" {
  return args.switches.has("v0") ? "v0" : "v1";
}
