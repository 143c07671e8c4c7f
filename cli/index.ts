/**
 * `npx portcullis <command>`: the project's single command line.
 *
 *   rego build|eval|test|plan|conformance   the Rego -> Wasm toolchain
 *   decisions                               read the decision log (auditors)
 *   serve                                   the HTTP API
 *   token <user-id>                         a development bearer token
 *   events                                  read the security events (auditors)
 *   inventory                               the route inventory: every route and version accounted for
 *   versions                                the version lifecycle table, from measured facts
 *   matrix --base-url <url>                 run the authorization matrix against an instance
 *   db migrate                              apply the PostgreSQL migrations (issue 23)
 *
 * Later issues add their commands here. Every command returns its exit code.
 */
import { UsageError } from "./args";
import { dbCommand, DB_USAGE } from "./db";
import { decisionsCommand, DECISIONS_USAGE } from "./decisions";
import { eventsCommand, EVENTS_USAGE } from "./events";
import { inventoryCommand, INVENTORY_USAGE } from "./inventory";
import { matrixCommand, MATRIX_USAGE } from "./matrix";
import { regoCommand } from "./rego";
import { serveCommand, SERVE_USAGE } from "./serve";
import { tokenCommand, TOKEN_USAGE } from "./token";
import { versionsCommand, VERSIONS_USAGE } from "./versions";

const USAGE = `usage: portcullis <command> [args]

commands:
  rego build -e <pkg/rule> [-e ...] -o <bundle.tar.gz> <files or dirs>
  rego eval -b <bundle.tar.gz> [-i input.json] [-d data.json] <pkg/rule>
  rego test <files or dirs>
  rego plan -e <pkg/rule> [-e ...] <files or dirs>
  rego conformance <dir> [--json report.json] [--min 0.8]
  ${DECISIONS_USAGE}
  ${EVENTS_USAGE}
  ${INVENTORY_USAGE}
  ${MATRIX_USAGE}
  ${SERVE_USAGE}
  ${TOKEN_USAGE}
  ${VERSIONS_USAGE}`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
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
