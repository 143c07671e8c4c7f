/**
 * The ring that carries events from the recording thread to the log's
 * worker (pdp/log/ring.ts): records come out as they went in, in order,
 * across the wrap at the end of the ring; a full ring refuses a record
 * whole; a writer waiting for room is woken for a run of records, not one;
 * the sleep/wake handshake never loses a wake-up.
 */
import { Worker } from "node:worker_threads";
import { allocateRing, RecordBuffer, RingReader, RingWriter, ROOM_TO_WAKE, type RecordReader, type RecordWriter } from "../../../pdp/log/pipelines/ring";

interface Sample {
  n: bigint;
  x: number;
  texts: Array<string | null>;
}

const bound = (s: Sample): number => 1 + 16 + 4 + s.texts.reduce((sum, t) => sum + 4 + (t === null ? 0 : 3 * t.length), 0);

function fill(s: Sample): (w: RecordWriter) => void {
  return (w) => {
    w.u8(s.texts.length);
    w.u64(s.n);
    w.f64(s.x);
    w.texts(s.texts);
  };
}

function read(r: RecordReader): Sample {
  const count = r.u8();
  const n = r.u64();
  const x = r.f64();
  return { n, x, texts: r.texts(count) };
}

function sample(i: number): Sample {
  // Sizes from a few bytes to ~300, multi-byte UTF-8 (2, 3 and 4 bytes), empty strings and nulls.
  const word = ["a", "é", "€", "😀", ""][i % 5].repeat((i * 37) % 90);
  return { n: 2n ** 63n + BigInt(i), x: i === 3 ? NaN : i * 1.5, texts: [`#${i}`, word, i % 3 === 0 ? null : "", "x".repeat(i % 7)] };
}

test("records come out as they went in, in order, across many wraps of a small ring", () => {
  const buffer = allocateRing(4096);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  const out: Sample[] = [];
  let next = 0;
  // Write until full, then read a few, many times over: the offsets wrap around the end again and again.
  while (next < 2000) {
    const before = next;
    while (next < 2000 && writer.write(bound(sample(next)), fill(sample(next)))) next++;
    if (next === before) expect(reader.peek()).not.toBeNull(); // refused only when full
    for (let k = 0; k < 3; k++) {
      const r = reader.peek();
      if (r === null) break;
      out.push(read(r));
      reader.consume();
    }
  }
  for (let r = reader.peek(); r !== null; r = reader.peek()) {
    out.push(read(r));
    reader.consume();
  }
  expect(out).toHaveLength(2000);
  out.forEach((s, i) => expect(s).toEqual(sample(i)));
  expect(writer.empty).toBe(true);
});

test("a full ring refuses a record whole, and takes it once the reader frees room", () => {
  const buffer = allocateRing(256);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  const small: Sample = { n: 1n, x: 1, texts: ["y".repeat(10)] };
  let written = 0;
  while (writer.write(bound(small), fill(small))) written++;
  expect(written).toBeGreaterThan(2);
  expect(writer.write(bound(small), fill(small))).toBe(false);
  // Room comes back as the reader consumes (the writer reserves the worst case, so it may take a few).
  let count = 0;
  let accepted = false;
  while (!accepted && count < written) {
    expect(read(reader.peek()!)).toEqual(small);
    reader.consume();
    count++;
    accepted = writer.write(bound(small), fill(small));
  }
  expect(accepted).toBe(true);
  for (let r = reader.peek(); r !== null; r = reader.peek()) {
    expect(read(r)).toEqual(small);
    reader.consume();
    count++;
  }
  expect(count).toBe(written + 1);
});

test("a record larger than a quarter of the ring is refused; RecordBuffer carries it with the same encoding", () => {
  const writer = new RingWriter(allocateRing(1024));
  const big: Sample = { n: 5n, x: 2.5, texts: ["é".repeat(200)] };
  expect(bound(big)).toBeGreaterThan(writer.maxRecord);
  expect(writer.write(bound(big), fill(big))).toBe(false);
  expect(writer.empty).toBe(true);
  const bytes = RecordBuffer.encode(bound(big), fill(big));
  expect(bytes.byteLength).toBe(1 + 16 + 4 + 4 + 400); // exactly what was written, not the bound
  expect(read(RecordBuffer.reader(bytes))).toEqual(big);
});

test("texts are cut where they were joined: lone surrogates never pair across two texts", () => {
  const buffer = allocateRing(4096);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  const high = "\ud83d";
  const low = "\ude00";
  // Each text reads back as UTF-8 alone would carry it: a lone surrogate becomes U+FFFD, a pair inside one text stays.
  const texts = [`a${high}`, `${low}b`, high, low, "😀", `${high}${low}`, null, ""];
  const s: Sample = { n: 1n, x: 1, texts };
  expect(writer.write(bound(s), fill(s))).toBe(true);
  expect(read(reader.peek()!).texts).toEqual(["a\ufffd", "\ufffdb", "\ufffd", "\ufffd", "😀", "😀", null, ""]);
});

test("long texts (encoded where they are) and short ones (joined) read back as they went in, surrogates cut the same way", () => {
  const buffer = allocateRing(1 << 16);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  const high = "\ud83d";
  const low = "\ude00";
  const long = (c: string) => c.repeat(300);
  const texts = ["id", long("é"), `${long("a")}${high}`, `${low}b`, null, long("😀"), "", "k", `${long("x")}${high}${low}`, high];
  const s: Sample = { n: 1n, x: 1, texts };
  expect(writer.write(bound(s), fill(s))).toBe(true);
  const expected = ["id", long("é"), `${long("a")}\ufffd`, "\ufffdb", null, long("😀"), "", "k", `${long("x")}😀`, "\ufffd"];
  expect(read(reader.peek()!).texts).toEqual(expected);
  // Outside the ring, the same bytes.
  expect(read(RecordBuffer.reader(RecordBuffer.encode(bound(s), fill(s)))).texts).toEqual(expected);
});

test("sleep and wake: the writer wakes a sleeping reader once, and a reader never sleeps on a record", () => {
  const buffer = allocateRing(1024);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  const one: Sample = { n: 0n, x: 0, texts: [] };
  // A new ring's reader is idle: the first records must wake it, once.
  expect(writer.claimWake()).toBe(true);
  expect(writer.claimWake()).toBe(false);
  // A record written before the reader looks: it does not go to sleep, and nobody needs to wake it.
  writer.write(bound(one), fill(one));
  expect(reader.sleepIfEmpty()).toBe(false);
  expect(writer.claimWake()).toBe(false);
  reader.peek();
  reader.consume();
  // Empty: it sleeps, and the next writer claims the wake-up.
  expect(reader.sleepIfEmpty()).toBe(true);
  expect(writer.claimWake()).toBe(true);
});

test("a writer waiting on a full ring is woken once ROOM_TO_WAKE is free, not at each record the reader frees", async () => {
  const buffer = allocateRing(4 * ROOM_TO_WAKE);
  const reader = new RingReader(buffer);
  // The writer blocks (Atomics.wait), so it runs in a thread of its own: it fills the ring, waits for
  // room, then says how many records it could write when it woke.
  const writer = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     require.extensions[".ts"] = (module, filename) => {
       const { code } = require("@swc/core").transformSync(require("node:fs").readFileSync(filename, "utf8"), {
         filename, jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } });
       module._compile(code, filename);
     };
     const { RingWriter } = require(workerData.ring);
     const ring = new RingWriter(workerData.buffer);
     const text = "x".repeat(1000);
     const bound = 4 + 4 + 4 + 3 * text.length;
     const write = () => ring.write(bound, (w) => w.texts([text]));
     let written = 0;
     while (write()) written++;
     parentPort.postMessage({ written });
     // As the recording thread does: wait, try, wait again (a wait also ends on room freed before it began).
     while (!write()) ring.waitForRoom(30000, bound);
     let room = 1;
     while (write()) room++;
     parentPort.postMessage({ room });`,
    { eval: true, workerData: { buffer, ring: require.resolve("../../../pdp/log/pipelines/ring") } },
  );
  try {
    const messages: Array<{ written?: number; room?: number }> = [];
    writer.on("message", (m: { written?: number; room?: number }) => messages.push(m));
    while (messages.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(messages[0].written).toBeGreaterThan(200);
    // The reader frees one record at a time, slowly, until the writer says it woke.
    let freed = 0;
    while (messages.length < 2) {
      if (reader.peek() !== null) {
        reader.consume();
        freed++;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    // Each record takes 1,012 bytes, and the full ring had less than a record's bound (3,016) free:
    // woken at each record freed (as before), the writer wrote one as soon as three were free.
    const perRecord = 4 + 4 + 4 + 1000;
    const atLeast = Math.floor((ROOM_TO_WAKE - 3016) / perRecord);
    expect(freed).toBeGreaterThanOrEqual(atLeast);
    expect(messages[1].room).toBeGreaterThanOrEqual(atLeast - 3);
  } finally {
    await writer.terminate();
  }
});

test("capacities that are not a power of two are refused", () => {
  expect(() => allocateRing(1000)).toThrow(/power of two/);
  expect(() => allocateRing(32)).toThrow(/power of two/);
});

test("a retaining reader frees room only where it releases; another reader reads the kept records again from there, as they went in", () => {
  const buffer = allocateRing(4096);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer, true);
  let next = 0;
  let settledAt = reader.position;
  let taken = 0;
  // Many wraps: read everything, release up to the record before last each time.
  while (next < 500) {
    while (next < 500 && writer.write(bound(sample(next)), fill(sample(next)))) next++;
    let before = reader.position;
    for (let r = reader.peek(); r !== null; r = reader.peek()) {
      expect(read(r)).toEqual(sample(taken++));
      before = reader.position;
      reader.consume();
    }
    // Nothing read is freed until released: the writer still has no room for what it refused.
    if (next < 500) expect(writer.write(bound(sample(next)), fill(sample(next)))).toBe(false);
    settledAt = before; // the last record read stays kept
    reader.release(settledAt);
  }
  // The last record read is kept: a new reader from the settled position reads it, and only it.
  const again = new RingReader(buffer, false, settledAt);
  const kept = again.take();
  expect(kept).not.toBeNull();
  expect(read(RecordBuffer.reader(kept!))).toEqual(sample(499));
  expect(again.take()).toBeNull();
});
