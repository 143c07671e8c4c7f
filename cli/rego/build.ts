/** `rego build`: compile policies into an OPA-layout bundle (what `opa build -t wasm` writes). */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { bundleFilePath, compile, writeBundle } from "@portcullis/rego-wasm";
import { one, parseArgs, syntaxVersion, UsageError } from "../args";
import { collectPolicyInputs } from "../files";
import { CUSTOM_BUILTIN_FLAGS, customBuiltins } from "./custom-builtins";

export async function buildCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: { "-e": "entrypoint", "--entrypoint": "entrypoint", "-o": "output", "--output": "output", "--revision": "revision", ...CUSTOM_BUILTIN_FLAGS },
    switches: { "--v0-compatible": "v0" },
  });
  // `--builtins` is accepted (and checked) so one command line serves build, test and eval; building runs nothing.
  const custom = await customBuiltins(args);
  const entrypoints = args.values.get("entrypoint") ?? [];
  const output = one(args, "output") ?? "bundle.tar.gz";
  if (entrypoints.length === 0) throw new UsageError("at least one entrypoint (-e pkg/rule) is required");
  if (args.positionals.length === 0) throw new UsageError("no policy files or directories given");

  const { sources, data } = collectPolicyInputs(args.positionals);
  const regoVersion = syntaxVersion(args);
  const { wasm } = compile(sources, { entrypoints, regoVersion, hostBuiltins: custom.decls, capabilities: custom.capabilities });
  // The manifest says which syntax the sources are in, as `opa build` writes it.
  const fileVersions = Object.fromEntries(
    sources.filter((s) => (s.regoVersion ?? regoVersion) !== regoVersion).map((s) => [bundleFilePath(s.file), s.regoVersion === "v0" ? 0 : 1]),
  );
  // Every decision names the revision that made it: without --revision, the
  // content itself (policy module and data), so a changed policy never
  // shares a revision with the one before it.
  const revision = one(args, "revision") ?? contentRevision(wasm, data);
  const bundle = writeBundle({
    wasm,
    data,
    manifest: {
      revision,
      roots: [""],
      rego_version: regoVersion === "v0" ? 0 : 1,
      ...(Object.keys(fileVersions).length > 0 ? { file_rego_versions: fileVersions } : {}),
      wasm: entrypoints.map((e) => ({ entrypoint: e, module: "/policy.wasm" })),
    },
    sources: sources.map((s) => ({ path: s.file, content: s.source })),
  });
  // Write beside the target and rename, so a failed build never leaves half a bundle.
  const tmp = `${output}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, bundle);
  fs.renameSync(tmp, output);
  console.log(`wrote ${output} (${bundle.length} bytes, ${entrypoints.length} entrypoint(s), policy.wasm ${wasm.length} bytes)`);
  return 0;
}

function contentRevision(wasm: Uint8Array, data: unknown): string {
  const hash = createHash("sha256").update(wasm).update(JSON.stringify(data)).digest("hex");
  return `sha256:${hash.slice(0, 16)}`;
}
