/**
 * `npx portcullis <command>`: the project's single command line.
 *
 *   rego build|eval|test|plan|conformance   the Rego -> Wasm toolchain
 *   rego replay                             a candidate bundle against the logged decisions
 *   decisions                               read the decision log (auditors)
 *   serve                                   the HTTP API
 *   token <user-id>                         a development bearer token
 *   events                                  read the security events (auditors)
 *   audit                                   the auditor's report: decisions and security events over a period
 *   inventory                               the route inventory: every route and version accounted for
 *   versions                                the version lifecycle table, from measured facts
 *   matrix --base-url <url>                 run the authorization matrix against an instance
 *   db migrate                              apply the PostgreSQL migrations (issue 23)
 *
 * Later issues add their commands here. Every command returns its exit code.
 */
import { UsageError } from "./args";
import { auditCommand, AUDIT_USAGE } from "./audit";
import { dbCommand, DB_USAGE } from "./db";
import { decisionsCommand, DECISIONS_USAGE } from "./decisions";
import { eventsCommand, EVENTS_USAGE } from "./events";
import { inventoryCommand, INVENTORY_USAGE } from "./inventory";
import { matrixCommand, MATRIX_USAGE } from "./matrix";
import { regoCommand, REGO_USAGES } from "./rego";
import { serveCommand, SERVE_USAGE } from "./serve";
import { tokenCommand, TOKEN_USAGE } from "./token";
import { versionsCommand, VERSIONS_USAGE } from "./versions";

/** Every command's usage (rego: one line per subcommand), for the command list and `--help`. */
const USAGES: Record<string, string[]> = {
  rego: Object.values(REGO_USAGES),
  decisions: [DECISIONS_USAGE],
  events: [EVENTS_USAGE],
  audit: [AUDIT_USAGE],
  inventory: [INVENTORY_USAGE],
  matrix: [MATRIX_USAGE],
  serve: [SERVE_USAGE],
  token: [TOKEN_USAGE],
  versions: [VERSIONS_USAGE],
  db: [DB_USAGE],
};

const USAGE = `usage: portcullis <command> [args]   (portcullis <command> --help: that command's usage)

commands:
${Object.values(USAGES)
  .flat()
  .map((line) => `  ${line}`)
  .join("\n")}`;

/**
 * `portcullis <command> [subcommand] --help` (or -h anywhere in its
 * arguments): the usage of that command, or of that rego subcommand;
 * undefined for an unknown command (an error, as without --help).
 */
function helpFor(command: string, rest: string[]): string | undefined {
  if (!rest.includes("--help") && !rest.includes("-h")) return undefined;
  const lines = command === "rego" && REGO_USAGES[rest[0]] ? [REGO_USAGES[rest[0]]] : USAGES[command];
  return lines && `usage:\n${lines.map((line) => `  portcullis ${line}`).join("\n")}`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const help = command === undefined ? undefined : helpFor(command, rest);
  if (help !== undefined) {
    console.log(help);
    return 0;
  }
  try {
    switch (command) {
      case "rego":
        return await regoCommand(rest);
      case "decisions":
        return await decisionsCommand(rest);
      case "serve":
        return await serveCommand(rest);
      case "token":
        return await tokenCommand(rest);
      case "events":
        return await eventsCommand(rest);
      case "audit":
        return await auditCommand(rest);
      case "inventory":
        return await inventoryCommand(rest);
      case "versions":
        return await versionsCommand(rest);
      case "matrix":
        return await matrixCommand(rest);
      case "db":
        return await dbCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`portcullis: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}
