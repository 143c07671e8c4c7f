/**
 * Report plumbing: the progress bar is a redrawn bar on a terminal and
 * plain phase lines elsewhere; the HTML report escapes everything it
 * prints (paths and details come from config files, schemas and probes).
 */
import { PassThrough } from "node:stream";
import { escapeHtml, inventoryHtml } from "../../inventory/report/html";
import { stderrProgress } from "../../inventory/report/progress";
import type { InventoryResult } from "../../inventory/types";

function stream(tty: boolean): { s: NodeJS.WriteStream; text: () => string } {
  const p = new PassThrough();
  let out = "";
  p.on("data", (c: Buffer) => (out += c.toString()));
  return { s: Object.assign(p, { isTTY: tty }) as unknown as NodeJS.WriteStream, text: () => out };
}

test("on a terminal: one bar redrawn in place", () => {
  const { s, text } = stream(true);
  const p = stderrProgress(s);
  p.phase("probing routes", 4);
  for (let i = 0; i < 4; i++) p.tick();
  p.done();
  expect(text()).toContain("\r[");
  expect(text()).toMatch(/\[#{30}\] 100% probing routes \(4\/4\)/);
});

test("not on a terminal: a line per phase, no control characters", () => {
  const { s, text } = stream(false);
  const p = stderrProgress(s);
  p.phase("probing versions", 21);
  p.tick();
  p.phase("probing routes", 3);
  p.done();
  expect(text()).toBe("inventory: probing versions (21)\ninventory: probing routes (3)\n");
});

test("the HTML report escapes what it prints", () => {
  expect(escapeHtml(`<img src=x onerror="a">&'`)).toBe("&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;");
  const evil = "/x/<script>alert(1)</script>";
  const result: InventoryResult = {
    generatedAt: "2026-11-21T00:00:00Z",
    target: "t",
    records: [],
    versions: [],
    parity: [],
    notes: [evil],
    findings: [{ id: `shadow-route:GET ${evil}`, kind: "shadow-route", subject: evil, detail: evil }],
    failing: [],
  };
  const html = inventoryHtml(result);
  expect(html).not.toContain("<script>alert(1)");
  expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
});
