/** `portcullis rego <subcommand>`: dispatch to one module per subcommand. */
import { UsageError } from "../args";
import { buildCommand } from "./build";
import { conformanceCommand } from "./conformance";
import { evalCommand } from "./eval";
import { planCommand } from "./plan";
import { testCommand } from "./test";

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
