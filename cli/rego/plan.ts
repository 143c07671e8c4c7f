/** `rego plan`: print the planner's IR for the given entrypoints (the compiler's inspectable middle). */
import { compile, printPolicy } from "@portcullis/rego-wasm";
import { parseArgs, syntaxVersion, UsageError } from "../args";
import { collectPolicyInputs } from "../files";

export async function planCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: { "-e": "entrypoint", "--entrypoint": "entrypoint" }, switches: { "--v0-compatible": "v0" } });
  const entrypoints = args.values.get("entrypoint") ?? [];
  if (entrypoints.length === 0) throw new UsageError("at least one entrypoint (-e pkg/rule) is required");
  const { sources } = collectPolicyInputs(args.positionals);
  const { policy } = compile(sources, { entrypoints, regoVersion: syntaxVersion(args) });
  console.log(printPolicy(policy));
  return 0;
}
