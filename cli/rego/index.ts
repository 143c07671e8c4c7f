/** `portcullis rego <subcommand>`: dispatch to one module per subcommand. */
import { UsageError } from "../args";
import { buildCommand } from "./build";
import { conformanceCommand } from "./conformance";
import { evalCommand } from "./eval";
import { planCommand } from "./plan";
import { replayCommand } from "./replay";
import { testCommand } from "./test";

/** Each subcommand's usage line, for the command list and `--help`. */
export const REGO_USAGES: Record<string, string> = {
  build: "rego build [--capabilities caps.json] -e <pkg/rule> [-e ...] -o <bundle.tar.gz> <files or dirs>",
  eval: "rego eval (-b <bundle.tar.gz> | -p <files or dirs>) [--capabilities caps.json --builtins impl.mjs] [-i input.json] [-d data.json] <pkg/rule>",
  test: "rego test [-v] [-r REGEX] [--format pretty|json] [--timeout 5s] [--bench] [-z] [--coverage] [--threshold N] [--junit FILE] [--capabilities caps.json --builtins impl.mjs] <files or dirs>",
  plan: "rego plan -e <pkg/rule> [-e ...] <files or dirs>",
  conformance: "rego conformance <dir> [--json report.json] [--min 0.8]",
  replay:
    "rego replay --bundle <candidate.tar.gz> [--db FILE] [--since 2h|2026-11-21T14:00:00Z] [--limit N] [--json] [--html FILE] [--fail-on deny-to-allow,allow-to-deny,status,reason,scope,fields,any]",
};

export async function regoCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "build":
      return buildCommand(rest);
    case "eval":
      return evalCommand(rest);
    case "test":
      return testCommand(rest);
    case "plan":
      return planCommand(rest);
    case "conformance":
      return conformanceCommand(rest);
    case "replay":
      return replayCommand(rest);
    default:
      throw new UsageError(`unknown rego subcommand "${sub ?? ""}"`);
  }
}
