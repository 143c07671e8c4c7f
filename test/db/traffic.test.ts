/**
 * Traffic counts are summed in memory and written in batches: a reader sees
 * every count (summary writes first), and closing the database keeps them.
 */
import { openDatabase } from "../../db";
import { closeTempDb, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

const hit = { method: "GET", template: "/api/{version}/health", version: "v1", status: 200, actorClass: "anonymous" as const };

test("repeated hits of one key become one row with their sum", () => {
  for (let i = 0; i < 7; i++) t.db.traffic.count(hit);
  t.db.traffic.count({ ...hit, status: 404 });
  const rows = t.db.traffic.summary();
  expect(rows.map((r) => [r.status, r.count])).toEqual([
    [200, 7],
    [404, 1],
  ]);
});

test("counts still in memory are written when the database closes", () => {
  t.db.traffic.count({ ...hit, n: 3 });
  t.db.close();
  const reopened = openDatabase(t.file);
  try {
    expect(reopened.traffic.summary().map((r) => r.count)).toEqual([3]);
  } finally {
    reopened.close();
  }
});

test("a batch adds to the counts already stored", () => {
  t.db.traffic.count(hit);
  t.db.traffic.flush();
  t.db.traffic.count({ ...hit, n: 4 });
  expect(t.db.traffic.summary().map((r) => r.count)).toEqual([5]);
});
