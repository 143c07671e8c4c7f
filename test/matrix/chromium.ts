/**
 * Loads a local HTML file in Debian's headless chromium and returns the DOM
 * it rendered (`--dump-dom`), so a test checks what a browser shows, not
 * the bytes we wrote; loadPage() also returns every message the page wrote
 * to the console (chromium's log on stderr: uncaught errors, failed loads,
 * console calls), and screenshot() saves a PNG to look at. A missing
 * chromium is a failure with the install command, never a silent pass (CI
 * installs it in .ci/run).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";

export function requireChromium(): string {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  const how = "apt-get update && apt-get install -y --no-install-recommends chromium";
  throw new Error(
    process.env.CI
      ? `chromium is missing at ${CHROMIUM} although CI is set: .ci/run must run \`${how}\` before make test`
      : `chromium is needed to check the matrix HTML report in a real browser and is missing at ${CHROMIUM}. Install it with \`sudo ${how}\` (Debian), or point CHROMIUM_BIN at a chromium binary.`,
  );
}

export function dumpDom(file: string): string {
  return loadPage(file).dom;
}

/**
 * The rendered DOM and the page's console messages (chromium logs them all
 * at one level, so a report page, which has nothing to say on the console,
 * must produce none).
 */
export function loadPage(file: string, hash = ""): { dom: string; console: string[] } {
  const { stdout, stderr } = chromium(["--enable-logging=stderr", "--v=0", "--dump-dom", `file://${path.resolve(file)}${hash}`]);
  const console = stderr.split("\n").filter((line) => /:CONSOLE[:(]\d+/.test(line));
  return { dom: stdout, console };
}

/** A PNG of the page as a 1280-pixel-wide window shows it (height: how much of the page). */
export function screenshot(file: string, png: string, height = 2400, hash = ""): string {
  chromium([`--screenshot=${path.resolve(png)}`, `--window-size=1280,${height}`, "--hide-scrollbars", `file://${path.resolve(file)}${hash}`]);
  return png;
}

function chromium(args: string[]): { stdout: string; stderr: string } {
  const bin = requireChromium();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-chromium-"));
  try {
    const run = spawnSync(
      bin,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        ...args,
      ],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] },
    );
    if (run.error) throw run.error;
    if (run.status !== 0) throw new Error(`chromium exited ${run.status}: ${run.stderr.slice(-2000)}`);
    return { stdout: run.stdout, stderr: run.stderr };
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
