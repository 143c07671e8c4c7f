/**
 * The inventory's page, from a real inventory of the clean tree (the app in
 * process, the repository's sources) with only some findings acknowledged,
 * rendered by headless chromium: findings and the risk distribution come
 * before the route table, the numbers shown are the JSON's, the page logs
 * nothing to the console, and the route table's filters (state in the
 * address) narrow the rows to exactly the records the JSON says match.
 *
 * REPORT_SCREENSHOTS=DIR saves PNGs of the page there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inventoryHtml } from "../../inventory/report/html";
import type { InventoryResult } from "../../inventory/types";
import { loadPage, screenshot } from "../matrix/chromium";
import { inProcess, parseResult, REPO, runCli, tempDir } from "./cli-helper";

let dir: string;
let result: InventoryResult;
let file: string;
let dom: string;
let consoleMessages: string[];

beforeAll(async () => {
  dir = tempDir();
  // Keep the first two acknowledgements only: the rest of the findings fail.
  const acks = fs.readFileSync(path.join(REPO, "inventory/acknowledgements.yaml"), "utf8");
  const entries = acks.split(/\n(?= {2}- finding:)/);
  fs.writeFileSync(path.join(dir, "acks.yaml"), entries.slice(0, 3).join("\n") + "\n");
  const run = await runCli(["inventory", "--json", "--acks", path.join(dir, "acks.yaml"), ...inProcess(dir)]);
  result = parseResult(run);
  file = path.join(dir, "inventory.html");
  fs.writeFileSync(file, inventoryHtml(result));
  ({ dom, console: consoleMessages } = loadPage(file));
  if (process.env.REPORT_SCREENSHOTS) {
    screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "inventory.png"), 2600);
    screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "inventory-filtered.png"), 1400, "#risk=high");
  }
}, 180_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const tile = (html: string, key: string) => Number(new RegExp(`data-tile="${key}"><b>(\\d+)</b>`).exec(html)?.[1]);
const bars = (html: string, id: string) =>
  [...(new RegExp(`<svg id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? "").matchAll(/data-label="([^"]*)" data-value="(\d+)"/g)].map((m) => `${m[1]}=${m[2]}`);

test("the page loads without a console message, self-contained but for its inline filter script", () => {
  expect(consoleMessages).toEqual([]);
  const html = fs.readFileSync(file, "utf8");
  expect(html).not.toMatch(/<link|\bsrc=|\bhref=|@import|url\(/i);
  expect(html.match(/<script/g)).toHaveLength(1);
});

test("findings and the risk distribution come first, with the JSON's numbers", () => {
  expect(result.failing.length).toBeGreaterThan(0);
  expect(result.failing.length).toBeLessThan(result.findings.length);
  const at = (marker: string) => dom.indexOf(marker);
  expect(at('id="findings"')).toBeLessThan(at('id="risk"'));
  expect(at('id="risk"')).toBeLessThan(at('id="routes"'));
  expect(tile(dom, "failing")).toBe(result.failing.length);
  expect(tile(dom, "findings")).toBe(result.findings.length);
  expect(tile(dom, "records")).toBe(result.records.length);
  expect(tile(dom, "critical")).toBe(result.records.filter((r) => r.risk.level === "critical").length);
  expect(tile(dom, "high")).toBe(result.records.filter((r) => r.risk.level === "high").length);
  const findingsTable = /<table id="findings-table">[\s\S]*?<\/table>/.exec(dom)?.[0] ?? "";
  expect(findingsTable.match(/<tr>/g)?.length).toBe(result.findings.length + 1);
  expect(findingsTable.match(/FAIL/g)?.length).toBe(result.failing.length);
  // Unacknowledged first.
  expect(findingsTable.lastIndexOf("FAIL")).toBeLessThan(findingsTable.indexOf("accepted"));
  expect(bars(dom, "risk-levels")).toEqual(["critical", "high", "medium", "low"].map((l) => `${l}=${result.records.filter((r) => r.risk.level === l).length}`));
  const kinds = new Map<string, number>();
  for (const f of result.findings) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  expect(bars(dom, "findings-by-kind").sort()).toEqual([...kinds].map(([k, n]) => `${k}=${n}`).sort());
});

test("the route table lists every record; filters from the address narrow it to the matching records", () => {
  const rows = (html: string) =>
    [...(/<table id="routes-table">[\s\S]*?<\/table>/.exec(html)?.[0] ?? "").matchAll(/<tr (data-method[^>]*)>/g)].map((m) => m[1]);
  expect(rows(dom)).toHaveLength(result.records.length);
  expect(rows(dom).filter((r) => r.includes(" hidden"))).toEqual([]);
  expect(dom).toContain(`data-shown="${result.records.length}"`);

  const shadowGet = result.records.filter((r) => r.class === "shadow" && r.method === "GET");
  expect(shadowGet.length).toBeGreaterThan(0);
  const filtered = loadPage(file, "#class=shadow&method=GET");
  expect(filtered.console).toEqual([]);
  expect(rows(filtered.dom).filter((r) => !/ hidden/.test(r))).toHaveLength(shadowGet.length);
  expect(filtered.dom).toContain(`data-shown="${shadowGet.length}"`);

  const text = loadPage(file, "#q=metrics");
  const matching = result.records.filter((r) =>
    [r.method, r.endpoint, r.version, r.class, r.owner, r.routeId ?? "", ...r.flags, ...r.sources].join(" ").toLowerCase().includes("metrics"),
  );
  expect(text.dom).toContain(`data-shown="${matching.length}"`);
  expect(matching.length).toBeGreaterThan(0);
  expect(matching.length).toBeLessThan(result.records.length);
});
