/**
 * The `name` custom section's function-name map, so stack traces and
 * disassemblies of a linked policy show `data.authz.allow` instead of
 * `$func1234`. Existing names (a debug build of the runtime) are kept; new
 * entries go after them, which keeps the map sorted because appended
 * functions have the highest indices.
 */
import { ByteReader, ByteWriter } from "./bytes";
import { findCustom, setCustom, type WasmModule } from "./module";

const FUNCTION_NAMES = 1;

export function addFunctionNames(module: WasmModule, names: Array<[number, string]>): void {
  const existing = findCustom(module, "name");
  const subsections: Array<{ id: number; content: Uint8Array }> = [];
  if (existing) {
    const r = new ByteReader(existing.body);
    r.name();
    while (!r.done) {
      const id = r.byte();
      subsections.push({ id, content: r.take(r.u32()) });
    }
  }
  let entries: Array<[number, string]> = [];
  const at = subsections.findIndex((s) => s.id === FUNCTION_NAMES);
  if (at >= 0) {
    const r = new ByteReader(subsections[at].content);
    const n = r.u32();
    for (let i = 0; i < n; i++) entries.push([r.u32(), r.name()]);
  }
  entries = entries.concat(names);
  const map = new ByteWriter().u32(entries.length);
  for (const [index, name] of entries) map.u32(index).name(name);
  const content = map.toBytes();
  if (at >= 0) subsections[at].content = content;
  else {
    // Subsections must appear in increasing id order.
    const before = subsections.findIndex((s) => s.id > FUNCTION_NAMES);
    subsections.splice(before < 0 ? subsections.length : before, 0, { id: FUNCTION_NAMES, content });
  }
  const payload = new ByteWriter();
  for (const s of subsections) payload.byte(s.id).u32(s.content.length).bytes(s.content);
  setCustom(module, "name", payload.toBytes());
}
