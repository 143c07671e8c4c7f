/**
 * Loads a local HTML file in Debian's headless chromium and returns the DOM
 * it rendered (`--dump-dom`), so a test checks what a browser shows, not
 * the bytes we wrote. A missing chromium is a failure with the install
 * command, never a silent pass (CI installs it in .ci/run).
 */
import { execFileSync } from "node:child_process";
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
  const bin = requireChromium();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-chromium-"));
  try {
    return execFileSync(
      bin,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", `--user-data-dir=${profile}`, "--dump-dom", `file://${path.resolve(file)}`,
      ],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] },
    );
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
