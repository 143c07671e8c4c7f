/**
 * A temp folder and the CLI's captured console for each test of a file:
 * `sb.dir` is new and empty before every test and removed after it;
 * `sb.out` collects what `console.log` and `console.error` print (assign
 * `sb.out = []` to start over mid-test).
 *
 *   const sb = cliSandbox("portcullis-cli-");
 *   sb.write("policy/authz.rego", "package authz ...");
 *   expect(await main(["rego", "test", sb.dir])).toBe(0);
 *   expect(sb.out.at(-1)).toBe("1 passed, 0 failed");
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface CliSandbox {
  dir: string;
  out: string[];
  /** Writes `content` at `rel` inside the folder (creating parents); returns the file's path. */
  write(rel: string, content: string): string;
}

export function cliSandbox(prefix: string): CliSandbox {
  const sb: CliSandbox = {
    dir: "",
    out: [],
    write(rel, content) {
      const file = path.join(sb.dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
  };
  beforeEach(() => {
    sb.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    sb.out = [];
    jest.spyOn(console, "log").mockImplementation((...args: unknown[]) => void sb.out.push(args.join(" ")));
    jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => void sb.out.push(args.join(" ")));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(sb.dir, { recursive: true, force: true });
  });
  return sb;
}
