/**
 * A Wasm module as a list of sections whose bodies stay raw bytes.
 *
 * `readModule` checks the header and splits the binary into sections;
 * `writeModule` serialises them again. Nothing inside a section is decoded
 * here: the linker decodes only the few sections it edits (see
 * `sections.ts`), so code it does not touch round-trips byte for byte.
 */
import { ByteReader, WasmFormatError, encodeU32 } from "./bytes";

export const SectionId = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  datacount: 12,
  tag: 13,
} as const;

export interface Section {
  id: number;
  /** The section's content, after the id and the size. */
  body: Uint8Array;
  /** For custom sections: the name at the start of `body`. */
  customName?: string;
  /** The size field exactly as read, so an untouched section is rewritten byte for byte. */
  rawSize?: Uint8Array;
}

export interface WasmModule {
  sections: Section[];
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];
const VERSION = [0x01, 0x00, 0x00, 0x00];

/**
 * The order non-custom sections must appear in. The binary format puts
 * datacount (12) before code (10) and tag (13) between memory and global.
 */
const ORDER: number[] = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

export function readModule(bytes: Uint8Array): WasmModule {
  const r = new ByteReader(bytes);
  const header = r.take(8);
  for (let i = 0; i < 4; i++) if (header[i] !== MAGIC[i]) throw new WasmFormatError("not a wasm module (bad magic)", i);
  for (let i = 0; i < 4; i++) if (header[4 + i] !== VERSION[i]) throw new WasmFormatError("unsupported wasm version", 4 + i);
  const sections: Section[] = [];
  let lastRank = -1;
  while (!r.done) {
    const id = r.byte();
    const sizeStart = r.pos;
    const size = r.u32();
    const rawSize = bytes.slice(sizeStart, r.pos);
    const body = r.take(size).slice();
    const section: Section = { id, body, rawSize };
    if (id === SectionId.custom) {
      section.customName = new ByteReader(body).name();
    } else {
      const rank = ORDER.indexOf(id);
      if (rank < 0) throw new WasmFormatError(`unknown section id ${id}`, sizeStart - 1);
      if (rank <= lastRank) throw new WasmFormatError(`section ${id} out of order or repeated`, sizeStart - 1);
      lastRank = rank;
    }
    sections.push(section);
  }
  return { sections };
}

export function writeModule(module: WasmModule): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [Uint8Array.from([...MAGIC, ...VERSION])];
  for (const s of module.sections) {
    const size = s.rawSize && decodedSize(s.rawSize) === s.body.length ? s.rawSize : Uint8Array.from(encodeU32(s.body.length));
    parts.push(Uint8Array.of(s.id), size, s.body);
  }
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function decodedSize(raw: Uint8Array): number {
  return new ByteReader(raw).u32();
}

export function findSection(module: WasmModule, id: number): Section | undefined {
  return module.sections.find((s) => s.id === id);
}

export function findCustom(module: WasmModule, name: string): Section | undefined {
  return module.sections.find((s) => s.id === SectionId.custom && s.customName === name);
}

/**
 * Replaces the body of section `id`, or inserts the section where the binary
 * format's order wants it (before the first later-ranked known section;
 * custom sections around it stay where they are).
 */
export function setSection(module: WasmModule, id: number, body: Uint8Array): void {
  const existing = findSection(module, id);
  if (existing) {
    existing.body = body;
    existing.rawSize = undefined;
    return;
  }
  const rank = ORDER.indexOf(id);
  let at = module.sections.length;
  for (let i = 0; i < module.sections.length; i++) {
    const s = module.sections[i];
    if (s.id !== SectionId.custom && ORDER.indexOf(s.id) > rank) {
      at = i;
      break;
    }
  }
  // A trailing run of custom sections (names, producers) stays after data.
  if (at === module.sections.length) {
    while (at > 0 && module.sections[at - 1].id === SectionId.custom) at--;
  }
  module.sections.splice(at, 0, { id, body });
}

/** Replaces a custom section's body, or appends the section at the end. */
export function setCustom(module: WasmModule, name: string, payload: Uint8Array): void {
  const nameBytes = Uint8Array.from([...encodeU32(new TextEncoder().encode(name).length), ...new TextEncoder().encode(name)]);
  const body = new Uint8Array(nameBytes.length + payload.length);
  body.set(nameBytes);
  body.set(payload, nameBytes.length);
  const existing = findCustom(module, name);
  if (existing) {
    existing.body = body;
    existing.rawSize = undefined;
  } else {
    module.sections.push({ id: SectionId.custom, body, customName: name });
  }
}
