/**
 * `rego eval`: evaluate an entrypoint through @open-policy-agent/opa-wasm and
 * print the result set: of a built bundle (`-b`), or of Rego sources compiled
 * on the spot (`-p FILE|DIR`, repeatable; `--v0-compatible` for v0 syntax).
 */
import * as fs from "node:fs";
import { compile, EvaluationClock, loadSizedPolicy, readBundle } from "@portcullis/rego-wasm";
import { maxMemoryPages, one, parseArgs, syntaxVersion, UsageError } from "../args";
import { collectPolicyInputs } from "../files";
import { CUSTOM_BUILTIN_FLAGS, customBuiltins, hostFunctions, type CustomBuiltins } from "./custom-builtins";

export async function evalCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: {
      "-b": "bundle",
      "--bundle": "bundle",
      "-p": "policy",
      "--policy": "policy",
      "-i": "input",
      "--input": "input",
      "-d": "data",
      "--data": "data",
      "--max-memory-pages": "maxMemoryPages",
      ...CUSTOM_BUILTIN_FLAGS,
    },
    switches: { "--v0-compatible": "v0" },
  });
  const bundlePath = one(args, "bundle");
  const policyPaths = args.values.get("policy") ?? [];
  if (!bundlePath === (policyPaths.length === 0)) throw new UsageError("give either -b <bundle.tar.gz> or -p <policy file or dir> (repeatable)");
  if (args.positionals.length !== 1) throw new UsageError("exactly one entrypoint (pkg/rule) is required");
  const entrypoint = args.positionals[0].replace(/^data\./, "").replace(/\./g, "/");

  const custom = await customBuiltins(args);
  const built = bundlePath ? readBundle(fs.readFileSync(bundlePath)) : compileSources(policyPaths, entrypoint, syntaxVersion(args), custom);
  const dataPath = one(args, "data");
  const data = dataPath ? readJson(dataPath) : built.data;
  const inputPath = one(args, "input");
  // Raw text, so the module parses the input itself (no falsy-input quirk in the SDK).
  const input = inputPath ? toArrayBuffer(fs.readFileSync(inputPath)) : undefined;
  if (inputPath) readJson(inputPath); // validate first: bad input is a clear error, not an abort

  // Memory sized from what the module and its data need (bundle/memory.ts).
  // Host builtins as the PDP dispatches them, plus the custom ones (--capabilities, --builtins).
  const clock = new EvaluationClock();
  const builtins = hostFunctions(custom, clock, "used" in built ? built.used : undefined);
  const policy = await loadSizedPolicy(built.wasm, data, { maxPages: maxMemoryPages(args), builtins });
  if (!(entrypoint in policy.entrypoints)) {
    throw new Error(`entrypoint ${entrypoint} is not in the bundle (has: ${Object.keys(policy.entrypoints).join(", ")})`);
  }
  clock.tick();
  console.log(JSON.stringify(policy.evaluate(input, entrypoint), null, 2));
  return 0;
}

/** The sources (and their data.json files) compiled with the entrypoint, as `rego build` would. */
function compileSources(
  paths: string[],
  entrypoint: string,
  regoVersion: "v0" | "v1",
  custom: CustomBuiltins,
): { wasm: Uint8Array; data: unknown; used: string[] } {
  const { sources, data } = collectPolicyInputs(paths);
  const { wasm, policy } = compile(sources, { entrypoints: [entrypoint], regoVersion, hostBuiltins: custom.decls, capabilities: custom.capabilities });
  return { wasm, data, used: policy.hostBuiltins.map((b) => b.name) };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: invalid JSON: ${(err as Error).message}`, { cause: err });
  }
}

function toArrayBuffer(buf: Buffer): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}
