/** `portcullis rego <subcommand>`: dispatch to one module per subcommand. */
import { UsageError } from "../args";
import { buildCommand } from "./build";
import { conformanceCommand } from "./conformance";
import { evalCommand } from "./eval";
import { planCommand } from "./plan";
import { testCommand } from "./test";

/** Each subcommand's usage line, for the command list and `--help`. */
export const REGO_USAGES: Record<string, string> = {
  build: "rego build -e <pkg/rule> [-e ...] -o <bundle.tar.gz> <files or dirs>",
  eval: "rego eval -b <bundle.tar.gz> [-i input.json] [-d data.json] <pkg/rule>",
  test: "rego test <files or dirs>",
  plan: "rego plan -e <pkg/rule> [-e ...] <files or dirs>",
  conformance: "rego conformance <dir> [--json report.json] [--min 0.8]",
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
    default:
      throw new UsageError(`unknown rego subcommand "${sub ?? ""}"`);
  }
}
