/**
 * The runner: every expanded cell, in the matrix file's route order, over
 * real HTTP against a base URL (an in-process app listening on an
 * ephemeral port in `make test`, or any running instance from the CLI).
 *
 * Per cell: build the request (path template with version and object id,
 * or the `Api-Version` header; query; body with the probe field), send it as
 * the persona, compare the status, for allowed reads the exact field set and
 * rows, and for writes re-read the row through the API (state.ts) to prove
 * that a denied write persisted nothing and an allowed one did.
 *
 *   const report = await runMatrix({ baseUrl, tokenFor, matrix: loadMatrix(), ops });
 */
import { MatrixClient, type MatrixResponse, type ResponseObserver, type TokenSource } from "./client";
import { checkFields, checkRows, checkStatus, objectsOf, PASS, type Outcome, type Verdict } from "./check";
import type { RuleCoverage } from "./coverage";
import { expandMatrix, type Cell } from "./expand";
import { formatExpectation, type Matrix } from "./model";
import type { OperationSet } from "./registry";
import { WorldState, type Profile } from "./state";

export interface CellResult {
  n: number;
  id: string;
  route: string;
  method: string;
  version: string;
  template: string;
  persona: string;
  role: string;
  tenant: string | null;
  target: string;
  object: string | null;
  probe: string | null;
  expected: string;
  /** The concrete status an allowed cell had to answer (409 for a workflow row in no start state). */
  expected_status: number | null;
  request: string | null;
  status: number | null;
  code: string | null;
  outcome: Outcome | "missing";
  detail: string;
  read_fields: string[] | null;
  write_fields: string[] | null;
  /** The cell's answer's Decision-Id: its recorded input in the decision log (rule coverage, ./coverage.ts). */
  decision_id: string | null;
}

export interface MatrixReport {
  generated_at: string;
  base_url: string;
  /** The test run every request was marked with (`portcullis decisions --test-run ID`); null when unmarked. */
  test_run: string | null;
  source: string;
  matrix_file: string;
  versions: string[];
  personas: Array<{ id: string; role: string; tenant: string | null }>;
  summary: {
    cells: number;
    passed: number;
    failed: number;
    not_applicable: number;
    missing: number;
    stale: number;
    requests: number;
    rate_limit_wait_sec: number;
    /** Users per role and the tenants they belong to: the coverage an auditor checks first. */
    users_per_role: Record<string, string[]>;
    tenants: string[];
  };
  setup_problems: string[];
  /** Persona profiles the run could not put back (each fails the run). */
  restore_problems: string[];
  /** What the run left changed on the instance: invoice states, invited and moderated users, export jobs. */
  changes: string[];
  missing: string[];
  stale: string[];
  cells: CellResult[];
  /** Which policy rules the cells exercised (`matrix --coverage`, ./coverage.ts). */
  coverage?: RuleCoverage;
}

export interface RunOptions {
  baseUrl: string;
  tokenFor: TokenSource;
  matrix: Matrix;
  ops: OperationSet;
  routes?: string[];
  /** Distinguishes this run's invited users and victims from earlier runs' (same instance). */
  runId?: string;
  /** Sees every request of the run with its answer (cells, setup and re-reads). */
  observe?: ResponseObserver;
  /** The run's test-run credential (api/identity/test-run.ts) and its run id: every request is marked as this run's. */
  testRun?: { id: string; credential: string };
}

export async function runMatrix(options: RunOptions): Promise<MatrixReport> {
  const { matrix } = options;
  const run = options.runId ?? Math.random().toString(36).slice(2, 10);
  const client = new MatrixClient(options.baseUrl, options.tokenFor, undefined, options.testRun?.credential);
  client.observe = options.observe;
  const expansion = expandMatrix(matrix, options.ops, { routes: options.routes });
  // Execution follows the file's route order (publish before refund), then the registry's expansion order.
  const order = new Map(matrix.routes.map((r, i) => [r.key, i]));
  const cells = [...expansion.cells].sort((a, b) => (order.get(a.entry.key) ?? 0) - (order.get(b.entry.key) ?? 0) || a.n - b.n);
  const world = new WorldState(client, matrix, run);
  const setupProblems = await world.setup({
    victims: cells.some((c) => c.object?.startsWith("victim:")),
    exportJobs: cells.some((c) => c.object?.startsWith("export:")),
  });

  const results: CellResult[] = [];
  for (const cell of cells) results.push(await runCell(cell, matrix, client, world, run));
  results.sort((a, b) => a.n - b.n);
  for (const m of expansion.missing) results.push(missingResult(results.length + 1, m));
  await world.verifyPersonas();
  const allowed = (route: string) => results.filter((r) => r.route === route && r.status !== null && r.status >= 200 && r.status < 300);
  const changes = world.changes(allowed("users.invite").length, allowed("admin.export").length, run);

  const count = (o: string) => results.filter((r) => r.outcome === o).length;
  const failed = results.filter((r) => r.outcome !== "pass" && r.outcome !== "n/a").length;
  return {
    generated_at: new Date().toISOString(),
    base_url: options.baseUrl,
    test_run: options.testRun?.id ?? null,
    source: options.ops.source,
    matrix_file: matrix.file,
    versions: options.ops.versions,
    personas: matrix.personas.map((p) => ({ id: p.id, role: p.role, tenant: p.tenant })),
    summary: {
      cells: results.length,
      passed: count("pass"),
      failed: failed + expansion.stale.length + setupProblems.length + world.restoreProblems.length,
      not_applicable: count("n/a"),
      missing: expansion.missing.length,
      stale: expansion.stale.length,
      requests: client.requests,
      rate_limit_wait_sec: client.waitedSec,
      users_per_role: Object.fromEntries(
        ["anonymous", "member", "support", "admin"].map((role) => [role, matrix.personas.filter((p) => p.role === role).map((p) => p.id)]),
      ),
      tenants: [...new Set(matrix.personas.map((p) => p.tenant).filter((t): t is string => t !== null))],
    },
    setup_problems: setupProblems,
    restore_problems: world.restoreProblems,
    changes,
    missing: expansion.missing,
    stale: expansion.stale,
    cells: results,
  };
}

async function runCell(cell: Cell, matrix: Matrix, client: MatrixClient, world: WorldState, run: string): Promise<CellResult> {
  const base = resultBase(cell);
  if (cell.expect.kind === "n/a") return { ...base, outcome: "n/a", detail: cell.expect.why };
  const objectId = world.resolve(cell.object);
  if (cell.object !== undefined && objectId === undefined) return { ...base, outcome: "mismatch", detail: `no ${cell.object} (see setup problems)` };
  const fill = (s: string) =>
    s
      .replace(/\{object\}/g, objectId ?? "")
      .replace(/\{unique\}/g, `matrix-${run}-${cell.n}`)
      .replace(/\{n\}/g, String(cell.n));
  const { path, version } = buildPath(cell, objectId, fill);
  const body =
    cell.entry.body === undefined
      ? undefined
      : { ...(substitute(cell.entry.body, fill) as Record<string, unknown>), ...(cell.probe ? { [cell.probe]: true } : {}) };
  const writes = cell.method !== "GET" && !cell.entry.stateless;

  // Before: what the write could change.
  const invoiceBefore = cell.entry.transition && objectId ? world.invoiceStatus.get(objectId) : undefined;
  const profileBefore = writes && cell.entry.object === "profile" && objectId ? await world.readProfile(objectId) : undefined;
  let expectedStatus = cell.successStatus;
  if (cell.entry.transition && cell.expect.kind === "allow" && !cell.entry.transition.from.includes(invoiceBefore ?? "")) expectedStatus = 409;

  const res = await client.send({ persona: cell.persona.id, method: cell.method, path, version, body });
  const done = (v: Verdict, extra = ""): CellResult => ({
    ...base,
    request: `${cell.method} ${path}${version ? ` (Api-Version: ${version})` : ""}`,
    status: res.status,
    code: res.code ?? null,
    expected_status: cell.expect.kind === "allow" ? expectedStatus : null,
    decision_id: res.headers["decision-id"] ?? null,
    outcome: v.outcome,
    detail: [v.detail, extra].filter((s) => s !== "").join("; "),
  });

  let verdict = checkStatus(cell, res, expectedStatus);
  if (verdict.outcome === "pass" && cell.expect.kind === "allow" && res.status < 300) verdict = checkRead(cell, matrix, res, objectId);
  if (!writes) return done(verdict, cell.entry.stateless && cell.method !== "GET" ? `no re-read: ${cell.entry.stateless}` : "");

  // After: re-read through the API.
  const persisted = await reread(cell, world, res, objectId, invoiceBefore, profileBefore, body, `matrix-${run}-${cell.n}`);
  if (verdict.outcome === "pass" && persisted.outcome !== "pass") verdict = persisted;
  return done(verdict, persisted.outcome === "pass" ? persisted.detail : verdict === persisted ? "" : `re-read: ${persisted.detail}`);
}

function checkRead(cell: Cell, matrix: Matrix, res: MatrixResponse, objectId: string | undefined): Verdict {
  // openapi and metrics answers are documents, not rows: only their top-level fields are checked.
  const objects = objectsOf(cell, res.body);
  if (typeof objects === "string") return { outcome: "mismatch", detail: objects };
  const fields = checkFields(cell, objects);
  if (fields.outcome !== "pass") return fields;
  return cell.entry.object && cell.entry.object !== "invitation" ? checkRows(cell, matrix, objects, objectId) : PASS;
}

async function reread(
  cell: Cell,
  world: WorldState,
  res: MatrixResponse,
  objectId: string | undefined,
  invoiceBefore: string | undefined,
  profileBefore: { status: number; profile: Profile } | undefined,
  body: Record<string, unknown> | undefined,
  unique: string,
): Promise<Verdict> {
  const ok = res.status >= 200 && res.status < 300;
  const kind = cell.entry.object;
  if (cell.entry.transition && objectId) {
    const now = await world.readInvoice(objectId);
    if (now !== undefined) world.invoiceStatus.set(objectId, now);
    const want = ok ? cell.entry.transition.to : invoiceBefore;
    if (now === want) return { outcome: "pass", detail: `re-read ${objectId}: ${now}` };
    return {
      outcome: ok ? "mismatch" : "unexpected_allow",
      detail: `${objectId} is ${now ?? "unreadable"} after the answer, expected ${want} (was ${invoiceBefore})`,
    };
  }
  if (kind === "user" && objectId) {
    if (cell.object?.startsWith("victim:")) {
      const status = (res.body as { status?: unknown } | undefined)?.status;
      if (!ok) return { outcome: "pass", detail: "victim not re-readable; the answer was a refusal" };
      return status === cell.entry.moderation
        ? { outcome: "pass", detail: `victim ${objectId}: ${status}` }
        : { outcome: "mismatch", detail: `victim ${objectId} answered status ${String(status)}, expected ${cell.entry.moderation}` };
    }
    const now = await world.readProfile(objectId);
    if (now.status === 200) return { outcome: "pass", detail: `re-read ${objectId}: still active` };
    return { outcome: "unexpected_allow", detail: `${objectId} can no longer use the API (${now.status} ${now.code ?? ""}): the moderation persisted` };
  }
  if (kind === "invitation") {
    const found = await world.findUsers(unique);
    const tenant = cell.persona.tenant;
    const bad = Object.entries(found).filter(([t, n]) => n !== (ok && t === tenant ? 1 : 0));
    if (bad.length === 0) return { outcome: "pass", detail: `re-read by search: ${JSON.stringify(found)}` };
    return { outcome: ok ? "mismatch" : "unexpected_allow", detail: `users found by ${unique} per tenant: ${JSON.stringify(found)}` };
  }
  if (kind === "profile" && objectId && profileBefore) {
    const now = await world.readProfile(objectId);
    const changed = now.profile.displayName !== profileBefore.profile.displayName;
    if (changed) await world.restoreProfile(objectId, profileBefore.profile);
    const wrote = now.profile.displayName === body?.displayName;
    if (ok)
      return wrote
        ? { outcome: "pass", detail: "re-read: displayName written (restored after)" }
        : { outcome: "mismatch", detail: "allowed, but the profile does not hold the values sent" };
    return changed
      ? { outcome: "unexpected_allow", detail: `denied, but the profile changed to ${JSON.stringify(now.profile)}` }
      : { outcome: "pass", detail: "re-read: profile unchanged" };
  }
  return { outcome: "pass", detail: "no row to re-read" };
}

function buildPath(cell: Cell, objectId: string | undefined, fill: (s: string) => string): { path: string; version?: string } {
  const versioned = cell.template.includes("{version}");
  let path = cell.template.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => (name === "version" ? cell.version : encodeURIComponent(objectId ?? "")));
  // A parameter naming the object is left out of untargeted cells (export without ids: every visible row).
  const query = Object.entries(cell.entry.query ?? {})
    .filter(([, v]) => objectId !== undefined || !v.includes("{object}"))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(fill(v))}`);
  if (query.length > 0) path += `?${query.join("&")}`;
  return { path, version: versioned ? undefined : cell.version };
}

function substitute(v: unknown, fill: (s: string) => string): unknown {
  if (typeof v === "string") return fill(v);
  if (Array.isArray(v)) return v.map((x) => substitute(x, fill));
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, fill)]));
  return v;
}

function resultBase(cell: Cell): CellResult {
  return {
    n: cell.n,
    id: cell.id,
    route: cell.routeId,
    method: cell.method,
    version: cell.version,
    template: cell.template,
    persona: cell.persona.id,
    role: cell.persona.role,
    tenant: cell.persona.tenant,
    target: cell.target,
    object: cell.object ?? null,
    probe: cell.probe ?? null,
    expected: formatExpectation(cell.expect),
    expected_status: null,
    request: null,
    status: null,
    code: null,
    outcome: "n/a",
    detail: "",
    read_fields: cell.read ?? null,
    write_fields: cell.write ?? null,
    decision_id: null,
  };
}

function missingResult(n: number, what: string): CellResult {
  return {
    n,
    id: what,
    route: what.split(" ")[1] ?? "",
    method: what.split(" ")[0] ?? "",
    version: "",
    template: "",
    persona: "",
    role: "",
    tenant: null,
    target: "",
    object: null,
    probe: null,
    expected: "missing",
    expected_status: null,
    request: null,
    status: null,
    code: null,
    outcome: "missing",
    detail: what,
    read_fields: null,
    write_fields: null,
    decision_id: null,
  };
}
