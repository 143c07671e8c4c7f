/**
 * ResultSets: the memory of recent result-set dumps by their bytes. A hit
 * must be the very bytes the module wrote: same length and hash is not
 * enough (the attack tests below build a hash collision).
 */
import { hashOf, ResultSets, sameBytes } from "../../pdp/result-sets";

/** A fake module memory holding `text` at `start` followed by a NUL (as a dump), with its word view. */
function memoryWith(text: string, start = 64): { memory: Buffer; words: Int32Array; start: number; end: number } {
  const memory = Buffer.alloc(4096, 0xff);
  const end = start + memory.write(text, start, "utf8");
  memory[end] = 0;
  return { memory, words: new Int32Array(memory.buffer, memory.byteOffset, memory.byteLength >> 2), start, end };
}

function read(memo: ResultSets, text: string, start?: number) {
  const m = memoryWith(text, start);
  return memo.read(m.memory, m.words, m.start, m.end);
}

/** Two different result-set texts of the same length whose bytes hash alike (a birthday search over `[{"result":"<n>"}]`). */
function collidingTexts(): [string, string] {
  const seen = new Map<number, string>();
  for (let n = 0; ; n++) {
    const text = `[{"result":"${n.toString(36).padStart(8, "0")}"}]`;
    const m = memoryWith(text);
    const hash = hashOf(m.memory, m.words, m.start, m.end);
    const other = seen.get(hash);
    if (other !== undefined) return [other, text];
    seen.set(hash, text);
  }
}

describe("ResultSets", () => {
  test("the same bytes give the same frozen value and texts; the value is JSON.parse of the bytes", () => {
    const memo = new ResultSets();
    const text = '[{"result":{"allow":true,"fields":{"read":["id"]},"reason":"é ok"}}]';
    const first = read(memo, text);
    expect(first.value).toEqual(JSON.parse(text));
    expect(first.text).toBe(text);
    expect(first.resultText).toBe('{"allow":true,"fields":{"read":["id"]},"reason":"é ok"}');
    expect(Object.isFrozen(first.value) && Object.isFrozen((first.value as { result: { fields: { read: string[] } } }[])[0].result.fields.read)).toBe(true);
    // Elsewhere in memory: the same set.
    expect(read(memo, text, 1024)).toBe(first);
    expect(memo.size).toBe(1);
    // Unaligned (a dump starts on an allocator's boundary; another module's may not): hashed otherwise, the same value.
    expect(read(memo, text, 131).value).toEqual(first.value);
  });

  test("a dump that differs in one byte, same length, is its own set", () => {
    const memo = new ResultSets();
    const a = read(memo, '[{"result":{"owner_id":"u_alice"}}]');
    const b = read(memo, '[{"result":{"owner_id":"u_alicf"}}]');
    expect(b).not.toBe(a);
    expect(b.value).toEqual([{ result: { owner_id: "u_alicf" } }]);
    expect(read(memo, '[{"result":{"owner_id":"u_alice"}}]').value).toEqual([{ result: { owner_id: "u_alice" } }]);
  });

  test("two dumps of the same length AND the same hash each get their own value and texts", () => {
    const [x, y] = collidingTexts();
    expect(x.length).toBe(y.length);
    const memo = new ResultSets();
    const a = read(memo, x);
    const b = read(memo, y);
    expect(b.value).toEqual(JSON.parse(y));
    expect(b.text).toBe(y);
    expect(b.resultText).toBe(JSON.stringify(JSON.parse(y)[0].result));
    // And back: the slot now holds y, x is parsed again, never answered with y's value.
    expect(read(memo, x).value).toEqual(a.value);
    expect(read(memo, y).value).toEqual(JSON.parse(y));
  });

  test("the byte comparison behind a hit sees a difference in any byte, whole words and the partial last word alike, at any alignment", () => {
    const memory = Buffer.alloc(256);
    const words = new Int32Array(memory.buffer, memory.byteOffset, memory.byteLength >> 2);
    for (let length = 1; length <= 13; length++) {
      const own = new Int32Array((length + 3) >>> 2);
      const bytes = Buffer.from(own.buffer, 0, length);
      for (let k = 0; k < length; k++) bytes[k] = 0x41 + k;
      for (let start = 64; start < 68; start++) {
        memory.fill(0x7e);
        bytes.copy(memory, start);
        expect(sameBytes({ bytes, words: own }, memory, words, start)).toBe(true);
        for (let k = 0; k < length; k++) {
          memory[start + k] ^= 0x20;
          expect(sameBytes({ bytes, words: own }, memory, words, start)).toBe(false);
          memory[start + k] ^= 0x20;
        }
      }
    }
  });

  test("a result set shaped otherwise has no result text", () => {
    const memo = new ResultSets();
    expect(read(memo, '[{"result":1,"x":2}]').resultText).toBeUndefined();
    expect(read(memo, "[]").resultText).toBeUndefined();
    expect(read(memo, '[{"result":1},{"result":2}]').resultText).toBeUndefined();
  });

  test("the memory is bounded in entries and leaves long dumps out", () => {
    const memo = new ResultSets();
    for (let i = 0; i < ResultSets.MAX_ENTRIES + 100; i++) expect(read(memo, `[${i}]`).value).toEqual([i]);
    expect(memo.size).toBe(ResultSets.MAX_ENTRIES);
    const long = JSON.stringify([{ result: "x".repeat(ResultSets.MAX_BYTES) }]);
    const a = read(memo, long);
    expect(read(memo, long)).not.toBe(a);
    expect(read(memo, long).value).toEqual(a.value);
    expect(Object.isFrozen(a.value)).toBe(false);
  });
});
