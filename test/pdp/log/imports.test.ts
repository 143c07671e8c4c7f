/**
 * pdp/log's modules import one another without a cycle, type imports
 * included: index.ts composes the two pipelines, and what they share (their
 * contract, core/types.ts) lives below them, never in index.ts. A cycle
 * makes load order matter and the map hard to read; this keeps it gone.
 * And the folders keep their order (README.md, "The map"): each imports
 * only from the folders below it.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const LOG_DIR = path.join(__dirname, "../../../pdp/log");

function modulesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return modulesUnder(file);
    return /\.(ts|js)$/.test(entry.name) ? [file] : [];
  });
}

/** The pdp/log modules a module imports (static, dynamic, require, `import type` and `export ... from` alike). */
function importsOf(file: string, known: Set<string>): string[] {
  const source = fs.readFileSync(file, "utf8");
  const specifiers = [...source.matchAll(/(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g)].map((m) => m[1]);
  return specifiers.flatMap((spec) => {
    const target = path.resolve(path.dirname(file), spec);
    const found = [target, `${target}.ts`, `${target}.js`, path.join(target, "index.ts")].find((candidate) => known.has(candidate));
    return found ? [found] : [];
  });
}

/** Every cycle found by a depth-first walk, each as the chain of modules that closes it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

test("the decision log's modules import one another without a cycle", () => {
  const files = modulesUnder(LOG_DIR);
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
  // The walk sees the imports (a guard against a check that reads nothing).
  expect(graph.get(path.join(LOG_DIR, "index.ts"))).toEqual(
    expect.arrayContaining([path.join(LOG_DIR, "pipelines/worker-log.ts"), path.join(LOG_DIR, "pipelines/in-thread.ts")]),
  );
  expect(cycles(graph).map((cycle) => cycle.map((file) => path.relative(LOG_DIR, file)).join(" -> "))).toEqual([]);
});

/** Each folder and the folders it may import from (its own modules aside). */
const BELOW: Record<string, string[]> = {
  core: [],
  store: ["core"],
  sinks: ["core", "store"],
  pipelines: ["core", "store", "sinks"],
};

test("each folder imports only from the folders below it", () => {
  const files = modulesUnder(LOG_DIR);
  const known = new Set(files);
  const folderOf = (file: string) => path.relative(LOG_DIR, file).split(path.sep)[0];
  expect(Object.keys(BELOW).sort()).toEqual([...new Set(files.map(folderOf))].filter((f) => !/\.(ts|js|md)$/.test(f)).sort());
  const upward = files.flatMap((file) =>
    importsOf(file, known)
      .filter((target) => folderOf(target) !== folderOf(file) && folderOf(file) in BELOW && !BELOW[folderOf(file)].includes(folderOf(target)))
      .map((target) => `${path.relative(LOG_DIR, file)} -> ${path.relative(LOG_DIR, target)}`),
  );
  expect(upward).toEqual([]);
});
