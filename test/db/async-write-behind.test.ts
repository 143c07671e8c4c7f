/**
 * asyncWriteBehind (PostgreSQL's bookkeeping buffer): a failed write puts
 * its entries back, merged with those added meanwhile, nothing is counted
 * twice or lost; past the bound new keys are dropped and counted.
 */
import { asyncWriteBehind } from "../../db/write-behind";

interface Count {
  key: string;
  n: number;
}

function buffer(maxKeys = 10) {
  const written: Count[][] = [];
  let failWith: Error | undefined;
  let gate: Promise<void> | undefined;
  const b = asyncWriteBehind<Count>({
    intervalMs: 60_000,
    maxKeys,
    weight: (c) => c.n,
    merge: (held, entry) => void (held.n += entry.n),
    async write(entries) {
      await gate;
      if (failWith) throw failWith;
      written.push(entries.map((e) => ({ ...e })));
    },
  });
  return {
    b,
    written,
    fail: (err?: Error) => void (failWith = err),
    hold: () => {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

test("a failed write keeps every entry, merged with those added while it ran; the next write takes them all", async () => {
  const t = buffer();
  t.b.add("a", { key: "a", n: 2 });
  t.fail(new Error("database unreachable"));
  const release = t.hold();
  const failing = t.b.flush();
  t.b.add("a", { key: "a", n: 3 }); // while the write is under way
  t.b.add("b", { key: "b", n: 1 });
  release();
  await expect(failing).rejects.toThrow("database unreachable");
  expect(t.b.stats()).toEqual({ pending: 6, dropped: 0, failedWrites: 1, lastError: "database unreachable" });

  t.fail(undefined);
  await t.b.flush();
  expect(t.written).toEqual([
    [
      { key: "a", n: 5 },
      { key: "b", n: 1 },
    ],
  ]);
  expect(t.b.stats()).toEqual({ pending: 0, dropped: 0, failedWrites: 1, lastError: null });
});

test("one write at a time: a flush during a write waits for it, then writes what came after", async () => {
  const t = buffer();
  t.b.add("a", { key: "a", n: 1 });
  const release = t.hold();
  const first = t.b.flush();
  t.b.add("b", { key: "b", n: 1 });
  const second = t.b.flush();
  release();
  await Promise.all([first, second]);
  expect(t.written).toEqual([[{ key: "a", n: 1 }], [{ key: "b", n: 1 }]]);
  expect(await t.b.flushQuietly()).toBe(true);
});

test("past maxKeys a new key is dropped and counted; a held key still takes its counts", async () => {
  const t = buffer(1);
  expect(t.b.add("a", { key: "a", n: 1 })).toBe(true);
  expect(t.b.add("b", { key: "b", n: 4 })).toBe(false);
  expect(t.b.add("a", { key: "a", n: 1 })).toBe(true);
  expect(t.b.stats()).toMatchObject({ pending: 2, dropped: 4 });
  await t.b.flush();
  expect(t.written).toEqual([[{ key: "a", n: 2 }]]);
});
