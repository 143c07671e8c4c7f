/**
 * The lifecycle page (`portcullis versions --html FILE`) and the trend in
 * `versions --json`: traffic counted by the real repository into a real
 * SQLite file over several days (probes and health checks among it, which
 * must not count), the versions probed on the real app in process. The
 * trend per day is exactly what was counted, sums to each version's
 * measured requests, and the page, rendered by headless chromium, logs
 * nothing and shows every version with the JSON's sunset and requests.
 *
 * REPORT_SCREENSHOTS=DIR saves a PNG of the page there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { openDatabase } from "../../db";
import type { LifecycleReport } from "../../inventory/report/lifecycle-html";
import { loadPage, screenshot } from "../matrix/chromium";
import { bundleFile, runCli, tempDir } from "./cli-helper";

let dir: string;
let db: string;
let report: LifecycleReport;
const DAY = 86_400_000;
const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  dir = tempDir();
  db = path.join(dir, "portcullis.db");
  const store = openDatabase(db);
  const hit = (version: string, ago: number, n: number, extra: { probe?: boolean; template?: string } = {}) =>
    store.traffic.count({
      method: "GET",
      template: extra.template ?? "/api/{version}/users/me",
      version,
      status: 200,
      actorClass: "member",
      at: new Date(Date.now() - ago * DAY),
      n,
      probe: extra.probe,
    });
  hit("v1", 20, 7);
  hit("v1", 10, 3);
  hit("v1", 2, 1);
  hit("v1", 2, 50, { probe: true }); // the inventory's own probes: never traffic
  hit("old", 5, 2);
  hit("beta", 3, 9, { template: "/api/{version}/health" }); // health checks keep nothing alive
  hit("v2", 1, 40);
  hit("v2", 0, 12);
  store.close();
  const run = await runCli(["versions", "--json", "--db", db, "--bundle", bundleFile()]);
  expect(run.code).toBe(0);
  report = JSON.parse(run.stdout) as LifecycleReport;
}, 180_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("--json: requests per day over the window, exactly as counted, summing to each version's measured traffic", () => {
  expect(report.trend.days).toHaveLength(31);
  expect(report.trend.days[30]).toBe(day(0));
  const at = (version: string) =>
    Object.fromEntries((report.trend.versions[version] ?? []).map((n, i) => [report.trend.days[i], n]).filter(([, n]) => n !== 0));
  expect(at("v1")).toEqual({ [day(20)]: 7, [day(10)]: 3, [day(2)]: 1 });
  expect(at("old")).toEqual({ [day(5)]: 2 });
  expect(at("v2")).toEqual({ [day(1)]: 40, [day(0)]: 12 });
  expect(report.trend.versions.beta).toBeUndefined();
  for (const v of report.versions) {
    const sum = (report.trend.versions[v.name] ?? []).reduce((a, b) => a + b, 0);
    expect(`${v.name} ${v.traffic.requests}`).toBe(`${v.name} ${sum}`);
  }
});

test("--html: the page loads without a console message and shows every version with the JSON's sunset and requests", async () => {
  const file = path.join(dir, "lifecycle.html");
  const run = await runCli(["versions", "--html", file, "--db", db, "--bundle", bundleFile()]);
  expect(run.code).toBe(0);
  const html = fs.readFileSync(file, "utf8");
  expect(html).not.toMatch(/<script|<link|\bsrc=|\bhref=|@import|url\(/i);
  const { dom, console: messages } = loadPage(file);
  expect(messages).toEqual([]);
  const rows = [...dom.matchAll(/<g data-version="([^"]*)" data-state="([^"]*)" data-sunset="([^"]*)" data-requests="([^"]*)">/g)].map((m) =>
    m.slice(1).join(" "),
  );
  expect(rows).toEqual(
    report.versions.map((v) => {
      const trend = report.trend.versions[v.name];
      return `${v.name} ${v.state} ${v.sunset?.slice(0, 10) ?? ""} ${trend ? trend.reduce((a, b) => a + b, 0) : ""}`;
    }),
  );
  for (const v of report.versions.filter((x) => x.sunset)) expect(dom).toContain(`sunset ${v.sunset!.slice(0, 10)}`);
  const trends = dom
    .split('<g data-version="')
    .slice(1)
    .flatMap((chunk) => {
      const days = /<g class="trend" data-days="([^"]*)"/.exec(chunk);
      return days ? [[chunk.slice(0, chunk.indexOf('"')), days[1]]] : [];
    });
  expect(Object.fromEntries(trends)).toEqual(Object.fromEntries(Object.entries(report.trend.versions).map(([v, days]) => [v, days.join(",")])));
  const tile = (key: string) => Number(new RegExp(`data-tile="${key}"><b>(\\d+)</b>`).exec(dom)?.[1]);
  expect([tile("versions"), tile("deprecated"), tile("zombie")]).toEqual([
    report.versions.length,
    report.versions.filter((v) => v.state === "Deprecated").length,
    report.versions.filter((v) => v.state === "Zombie").length,
  ]);
  expect((/<table id="versions-table">[\s\S]*?<\/table>/.exec(dom)?.[0].match(/<tr>/g) ?? []).length).toBe(report.versions.length + 1);
  if (process.env.REPORT_SCREENSHOTS) screenshot(file, path.join(process.env.REPORT_SCREENSHOTS, "lifecycle.png"), 1300);
});
