/**
 * `--help` (and `-h`) on every `portcullis` command and rego subcommand:
 * prints that command's usage and exits 0, WITHOUT running it (serve
 * --help must not start a server, token --help must not mint). The list of
 * commands is read from the top-level usage, so a command added there is
 * checked here too.
 */
import { main } from "../../cli";

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = jest.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    return { code: await main(argv), out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** `["rego", "build"]`, `["decisions"]`, ...: every command line the top-level usage lists. */
async function commands(): Promise<string[][]> {
  const { code, out } = await run(["--help"]);
  expect(code).toBe(0);
  const lines = out.split("\n").slice(out.split("\n").indexOf("commands:") + 1);
  return lines.map((line) => {
    const words = line.trim().split(/\s+/);
    return words[0] === "rego" ? words.slice(0, 2) : words.slice(0, 1);
  });
}

test("the top-level usage lists every command, rego's subcommands one by one", async () => {
  const listed = (await commands()).map((c) => c.join(" "));
  expect(listed).toEqual(
    expect.arrayContaining([
      "rego build",
      "rego eval",
      "rego test",
      "rego plan",
      "rego conformance",
      "decisions",
      "events",
      "inventory",
      "matrix",
      "serve",
      "token",
      "versions",
      "db",
    ]),
  );
});

test.each(["--help", "-h"])("every command and subcommand answers %s with its own usage, exit 0, and does nothing else", async (flag) => {
  for (const command of await commands()) {
    // Arguments that would otherwise run the command (or fail on them) do not matter with --help.
    const { code, out, err } = await run([...command, "--port", "1", flag]);
    expect({ command, code, err }).toEqual({ command, code: 0, err: "" });
    expect(out).toMatch(new RegExp(`^usage:\\n  portcullis ${command.join(" ")}\\b`));
    expect(out.split("\n")).toHaveLength(2); // that command's line only
  }
  const rego = await run(["rego", flag]);
  expect(rego.code).toBe(0);
  expect(
    rego.out
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(" ").slice(0, 3).join(" ")),
  ).toEqual([
    "portcullis rego build",
    "portcullis rego eval",
    "portcullis rego test",
    "portcullis rego plan",
    "portcullis rego conformance",
    "portcullis rego replay",
  ]);
});

test("an unknown command stays an error, --help or not", async () => {
  const res = await run(["frobnicate", "--help"]);
  expect(res.code).toBe(2);
  expect(res.err).toMatch(/unknown command "frobnicate"/);
});
