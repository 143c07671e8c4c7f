/**
 * The policy's data segment: string constants and NUL-terminated messages,
 * laid out from a base address just past the runtime's own static data.
 *
 * Addresses are handed out as the emitter asks for them, so the layout is
 * final only once every function has been emitted. Equal texts share bytes.
 * A region reserved first (`reserve`, the decision trail's) sits at the base,
 * zero-filled by the fresh memory: the segment starts past it.
 */
const utf8 = new TextEncoder();

export class DataLayout {
  private bytes: number[] = [];
  private strings = new Map<string, number>();
  private messages = new Map<string, number>();
  private reserved = 0;

  constructor(readonly base: number) {}

  /** The address of `size` zero bytes (16-aligned) before the segment; only before any text is laid out. */
  reserve(size: number): number {
    if (this.bytes.length > 0) throw new Error("emit: a region is reserved after data was laid out");
    const at = this.base + this.reserved;
    this.reserved += (size + 15) & ~15;
    return at;
  }

  /** Where the data segment starts: past the reserved regions. */
  get segmentStart(): number {
    return this.base + this.reserved;
  }

  /** Address and byte length of `text` as UTF-8 (no terminator). */
  string(text: string): { ptr: number; len: number } {
    const encoded = utf8.encode(text);
    let ptr = this.strings.get(text);
    if (ptr === undefined) {
      ptr = this.append(encoded);
      this.strings.set(text, ptr);
    }
    return { ptr, len: encoded.length };
  }

  /** Address of `text` as NUL-terminated UTF-8, as opa_abort and opa_println expect. */
  message(text: string): number {
    let ptr = this.messages.get(text);
    if (ptr === undefined) {
      // An embedded NUL would silently cut the message short; make it visible instead.
      const encoded = utf8.encode(text.replace(/\0/g, "\\0"));
      ptr = this.append([...encoded, 0]);
      this.messages.set(text, ptr);
    }
    return ptr;
  }

  /** First address past the data. */
  get end(): number {
    return this.segmentStart + this.bytes.length;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }

  private append(encoded: ArrayLike<number>): number {
    const ptr = this.end;
    for (let i = 0; i < encoded.length; i++) this.bytes.push(encoded[i]);
    return ptr;
  }
}
