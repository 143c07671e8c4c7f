import { newDecisionId } from "../../pdp/decision-id";

const V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7([0-9a-f]{3})-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit Unix milliseconds an id carries. */
const millisOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

test("ids are RFC 9562 version 7 UUIDs carrying the time they were minted", () => {
  const before = Date.now();
  const id = newDecisionId();
  const after = Date.now();
  expect(id).toMatch(V7);
  expect(millisOf(id)).toBeGreaterThanOrEqual(before);
  expect(millisOf(id)).toBeLessThanOrEqual(after + 1);
  expect(millisOf(newDecisionId(Date.UTC(2030, 0, 1)))).toBeGreaterThanOrEqual(Date.UTC(2030, 0, 1));
});

test("ids strictly increase, within a millisecond, past the counter's end, and when the clock steps back", () => {
  const t = Date.UTC(2031, 5, 1); // later than any id minted so far in this process
  const ids = [newDecisionId(t)];
  for (let i = 0; i < 5000; i++) ids.push(newDecisionId(t)); // more than the 12-bit counter holds
  ids.push(newDecisionId(t - 60_000)); // clock stepped back a minute
  for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(V7);
  // The counter ran out within t, so later ids borrowed the next milliseconds rather than repeat.
  expect(millisOf(ids[ids.length - 1])).toBeGreaterThan(t);
  expect(millisOf(ids[ids.length - 1])).toBeLessThan(t + 10);
});

test("the random part differs between ids minted in the same millisecond", () => {
  const t = Date.UTC(2032, 0, 1);
  const tails = new Set(Array.from({ length: 1000 }, () => newDecisionId(t).slice(19)));
  expect(tails.size).toBe(1000);
});

test("random bytes stay fresh when the pool is refilled in the background between turns of the event loop", async () => {
  const t = Date.UTC(2033, 0, 1);
  const tails = new Set<string>();
  // Several pools' worth, letting the background refill land between batches, as a server does.
  for (let batch = 0; batch < 100; batch++) {
    for (let i = 0; i < 100; i++) tails.add(newDecisionId(t).slice(19));
    await new Promise(setImmediate);
  }
  expect(tails.size).toBe(10000);
});
