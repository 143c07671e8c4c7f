/**
 * Byte-level primitives of the Wasm binary format: LEB128 integers, names and
 * length-prefixed vectors, plus a cursor (`ByteReader`) and a growable buffer
 * (`ByteWriter`) built on them.
 *
 * Only what the linker needs: u32/s32 LEB128 (every index, count, size and
 * i32 constant in the format), s64 for skipping i64 constants, UTF-8 names.
 */

/** Thrown when a binary is not well-formed Wasm (or uses a form we do not read). */
export class WasmFormatError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`malformed wasm at byte ${offset}: ${message}`);
    this.name = "WasmFormatError";
  }
}

/** Unsigned LEB128 encoding of a u32. */
export function encodeU32(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`not a u32: ${value}`);
  const out: number[] = [];
  let v = value;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 encoding of an s32 (i32.const immediates). */
export function encodeS32(value: number): number[] {
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new RangeError(`not an s32: ${value}`);
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });

/** A forward-only cursor over a byte array; every read checks bounds. */
export class ByteReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  fail(message: string): never {
    throw new WasmFormatError(message, this.pos);
  }

  byte(): number {
    if (this.pos >= this.end) this.fail("unexpected end");
    return this.bytes[this.pos++];
  }

  take(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.end) this.fail(`${n} bytes run past the end`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  u32(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 5; i++) {
      const b = this.byte();
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) {
        if (result > 0xffffffff) this.fail("u32 out of range");
        return result;
      }
      mul *= 128;
    }
    return this.fail("u32 LEB128 longer than 5 bytes");
  }

  s32(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      if (shift >= 35) this.fail("s32 LEB128 longer than 5 bytes");
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 32 && b & 0x40) result |= -1 << shift;
    return result | 0;
  }

  /** Skips an s64 (i64.const); its value is never needed. */
  skipS64(): void {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    this.fail("s64 LEB128 longer than 10 bytes");
  }

  name(): string {
    const bytes = this.take(this.u32());
    try {
      return utf8Strict.decode(bytes);
    } catch {
      return this.fail("name is not UTF-8");
    }
  }
}

/** An append-only byte buffer (a doubling Uint8Array: emitting is on the compile path). */
export class ByteWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  get length(): number {
    return this.len;
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.len++] = b;
    return this;
  }

  bytes(bs: ArrayLike<number>): this {
    this.reserve(bs.length);
    if (bs instanceof Uint8Array) this.buf.set(bs, this.len);
    else for (let i = 0; i < bs.length; i++) this.buf[this.len + i] = bs[i];
    this.len += bs.length;
    return this;
  }

  u32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`not a u32: ${v}`);
    this.reserve(5);
    do {
      let byte = v & 0x7f;
      v = Math.floor(v / 128);
      if (v !== 0) byte |= 0x80;
      this.buf[this.len++] = byte;
    } while (v !== 0);
    return this;
  }

  s32(value: number): this {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new RangeError(`not an s32: ${value}`);
    this.reserve(5);
    let v = value | 0;
    for (;;) {
      const byte = v & 0x7f;
      v >>= 7;
      const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
      this.buf[this.len++] = done ? byte : byte | 0x80;
      if (done) return this;
    }
  }

  name(s: string): this {
    const bytes = utf8.encode(s);
    return this.u32(bytes.length).bytes(bytes);
  }

  toBytes(): Uint8Array<ArrayBuffer> {
    return this.buf.slice(0, this.len);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
}
