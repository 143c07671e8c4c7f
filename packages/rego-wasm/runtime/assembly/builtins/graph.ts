/**
 * graph.reachable and graph.reachable_paths (OPA v1/topdown/reachable.go).
 *
 * A graph is an object from node to its neighbours, an array or a set. A
 * node whose value is anything else (null, a number...) is in the graph but
 * has no neighbours; a neighbour that is not a key of the graph is not in
 * it. The initial nodes are an array or a set. Both results are sets.
 * A graph that is not an object or initial nodes that are neither an array
 * nor a set are type errors in OPA: undefined here (no strict mode in Wasm).
 */

import { Value, ArrV, ObjV, SetV, T_ARRAY, T_OBJECT, T_SET, asArr, asObj, asSet, equal, setFromItems } from "../value";

/** The members of an array or a set; null for any other value. */
function vertices(v: Value): Array<Value> | null {
  if (v.kind == T_ARRAY) return asArr(v).items;
  if (v.kind == T_SET) return asSet(v).items;
  return null;
}

/** graph.reachable(graph, initial): every node of the graph reachable from an initial node (that node included). */
export function bi_graph_reachable(g: Value | null, initial: Value | null): Value | null {
  if (g === null || initial === null || g.kind != T_OBJECT) return null;
  const start = vertices(initial);
  if (start === null) return null;
  const graph = asObj(g);
  const reached = new SetV();
  // Breadth-first; a node counts as reached only when it is a key of the graph.
  const queue = start.slice(0);
  for (let head = 0; head < queue.length; head++) {
    const node = unchecked(queue[head]);
    if (reached.has(node)) continue; // queued twice before it was visited
    const edges = graph.get(node);
    if (edges === null) continue;
    reached.add(node);
    const next = vertices(edges);
    if (next === null) continue;
    for (let i = 0; i < next.length; i++) {
      const n = unchecked(next[i]);
      if (!reached.has(n)) queue.push(n);
    }
  }
  return reached;
}

/**
 * graph.reachable_paths(graph, initial): every path that starts at an
 * initial node of the graph and goes on until it reaches a node without
 * neighbours, a node not in the graph (which the path leaves out) or a node
 * already on the path (a cycle, also left out).
 */
export function bi_graph_reachable_paths(g: Value | null, initial: Value | null): Value | null {
  if (g === null || initial === null || g.kind != T_OBJECT) return null;
  const start = vertices(initial);
  if (start === null) return null;
  const graph = asObj(g);
  const paths = new Array<Value>();
  for (let i = 0; i < start.length; i++) {
    const node = unchecked(start[i]);
    const edges = graph.get(node);
    if (edges === null) continue;
    const next = vertices(edges);
    if (next === null || next.length == 0) {
      paths.push(new ArrV([node]));
      continue;
    }
    // As OPA: the initial node's own neighbours are not checked against it,
    // so a self-loop on an initial node `x` yields [x, x].
    for (let j = 0; j < next.length; j++) extendPaths(graph, unchecked(next[j]), [node], paths);
  }
  return setFromItems(paths);
}

/** Depth-first from node, which follows the last node of path; path is this branch's own copy. */
function extendPaths(graph: ObjV, node: Value, path: Array<Value>, paths: Array<Value>): void {
  const edges = graph.get(node);
  if (edges === null) {
    paths.push(new ArrV(path));
    return;
  }
  path.push(node);
  const next = vertices(edges);
  if (next === null || next.length == 0) {
    paths.push(new ArrV(path));
    return;
  }
  for (let j = 0; j < next.length; j++) {
    const n = unchecked(next[j]);
    if (onPath(path, n)) paths.push(new ArrV(path)); // path is not changed after this
    else extendPaths(graph, n, path.slice(0), paths);
  }
}

function onPath(path: Array<Value>, v: Value): bool {
  for (let i = 0; i < path.length; i++) if (equal(unchecked(path[i]), v)) return true;
  return false;
}
