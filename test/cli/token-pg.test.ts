/**
 * `portcullis token` against a cluster's store: with PORTCULLIS_DATABASE_URL
 * set it looks the user up in PostgreSQL (where the instances read users),
 * never creates or reads a SQLite file, and names the database without its
 * password when the user is not there.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { tokenCommand } from "../../cli/token";
import { clonePgDatabase } from "../db/contract/backends";

jest.setTimeout(120_000);

let db: Awaited<ReturnType<typeof clonePgDatabase>>;
let dir: string;
const cwd = process.cwd();
const saved = process.env.PORTCULLIS_DATABASE_URL;

beforeAll(async () => {
  db = await clonePgDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-token-pg-"));
  process.chdir(dir); // var/ (dev key, and a SQLite file if one were made) lands here
  process.env.PORTCULLIS_DATABASE_URL = db.urls.app;
});

afterAll(async () => {
  process.chdir(cwd);
  if (saved === undefined) delete process.env.PORTCULLIS_DATABASE_URL;
  else process.env.PORTCULLIS_DATABASE_URL = saved;
  fs.rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

test("a seeded user of the PostgreSQL store gets a token; no SQLite file is made", async () => {
  const out: string[] = [];
  const log = jest.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
  try {
    expect(await tokenCommand(["u_alice"])).toBe(0);
  } finally {
    log.mockRestore();
  }
  expect(out).toHaveLength(1);
  expect(out[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(fs.existsSync(path.join(dir, "var", "portcullis.db"))).toBe(false);
});

test("an id that is no user of the PostgreSQL store is refused, naming the database without its password", async () => {
  const err = (await tokenCommand(["u_nobody"]).catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(Error);
  expect(err.message).toMatch(/^no user "u_nobody" in postgres:\/\/127\.0\.0\.1:\d+\/portcullis_test_\w+$/);
  expect(err.message).not.toContain(new URL(db.urls.app).password);
});
