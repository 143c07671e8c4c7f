/** `rego eval`: evaluate a bundle's entrypoint through @open-policy-agent/opa-wasm and print the result set. */
import * as fs from "node:fs";
import { loadSizedPolicy, readBundle } from "../../pdp/compiler/bundle";
import { maxMemoryPages, one, parseArgs, UsageError } from "../args";

export async function evalCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "-b": "bundle", "--bundle": "bundle", "-i": "input", "--input": "input", "-d": "data", "--data": "data", "--max-memory-pages": "maxMemoryPages" },
  });
  const bundlePath = one(args, "bundle");
  if (!bundlePath) throw new UsageError("-b <bundle.tar.gz> is required");
  if (args.positionals.length !== 1) throw new UsageError("exactly one entrypoint (pkg/rule) is required");
  const entrypoint = args.positionals[0].replace(/^data\./, "").replace(/\./g, "/");

  const bundle = readBundle(fs.readFileSync(bundlePath));
  const dataPath = one(args, "data");
  const data = dataPath ? readJson(dataPath) : bundle.data;
  const inputPath = one(args, "input");
  // Raw text, so the module parses the input itself (no falsy-input quirk in the SDK).
  const input = inputPath ? toArrayBuffer(fs.readFileSync(inputPath)) : undefined;
  if (inputPath) readJson(inputPath); // validate first: bad input is a clear error, not an abort

  // Memory sized from what the module and its data need (bundle/memory.ts).
  const policy = await loadSizedPolicy(bundle.wasm, data, { maxPages: maxMemoryPages(args) });
  if (!(entrypoint in policy.entrypoints)) {
    throw new Error(`entrypoint ${entrypoint} is not in the bundle (has: ${Object.keys(policy.entrypoints).join(", ")})`);
  }
  console.log(JSON.stringify(policy.evaluate(input, entrypoint), null, 2));
  return 0;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: invalid JSON: ${(err as Error).message}`);
  }
}

function toArrayBuffer(buf: Buffer): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}
