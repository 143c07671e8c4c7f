/**
 * The matrix's HTTP client: real requests (fetch) against a base URL, as a
 * persona (a bearer token minted for it, none for anonymous), with the
 * version in the path or the `Api-Version` header.
 *
 * A 429 is not a verdict: the runner waits `Retry-After` and sends the
 * request again (at most 3 times), so a run against a live instance with
 * its real budgets completes; every wait is counted in the report.
 *
 * Every request carries the run's test-run credential when it has one
 * (`Portcullis-Test-Run`, api/identity/test-run.ts): the instance records the
 * run id on each decision's outcome and security event, so auditors can
 * tell the run's deliberate denials from real traffic.
 *
 *   const client = new MatrixClient("http://127.0.0.1:8080", tokenFor);
 *   const res = await client.send({ persona: "u_alice", method: "GET", path: "/invoices/inv_alice_1", version: "v1" });
 *
 * `observe` sees every final answer (status, Content-Type, headers, body):
 * test/api/openapi-responses.test.ts validates each against /openapi.json.
 */
export type TokenSource = (user: string) => Promise<string>;

export interface MatrixRequest {
  /** A user id, or "anonymous" for no Authorization header. */
  persona: string;
  method: string;
  /** Path with its query string. */
  path: string;
  /** Sent as `Api-Version` when given (templates without /api/{version}). */
  version?: string;
  body?: unknown;
}

export interface MatrixResponse {
  status: number;
  body: unknown;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** The problem code of an error answer (`urn:portcullis:problem:<code>`); for `forbidden`, the policy's `reason` (role_required, ...). */
  code?: string;
}

/** Sees each request with its final answer (after any 429 retries). */
export type ResponseObserver = (req: MatrixRequest, res: MatrixResponse) => void;

const PROBLEM_PREFIX = "urn:portcullis:problem:";
const MAX_RETRIES = 3;

export class MatrixClient {
  private readonly tokens = new Map<string, Promise<string>>();
  /** Seconds spent waiting for rate-limit windows. */
  waitedSec = 0;
  requests = 0;
  observe?: ResponseObserver;

  constructor(
    private readonly baseUrl: string,
    private readonly tokenFor: TokenSource,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly testRunCredential?: string,
  ) {}

  async send(req: MatrixRequest): Promise<MatrixResponse> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.testRunCredential) headers["Portcullis-Test-Run"] = this.testRunCredential;
    if (req.persona !== "anonymous") headers.Authorization = `Bearer ${await this.token(req.persona)}`;
    if (req.version) headers["Api-Version"] = req.version;
    if (req.body !== undefined) headers["Content-Type"] = "application/json";
    for (let attempt = 0; ; attempt++) {
      this.requests++;
      const res = await fetch(new URL(req.path, this.baseUrl), {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
      });
      const text = await res.text();
      if (res.status === 429 && attempt < MAX_RETRIES) {
        const wait = Math.min(Number(res.headers.get("retry-after")) || 1, 65);
        this.waitedSec += wait;
        await this.sleep(wait * 1000);
        continue;
      }
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: kept as text, and the field check will say so.
      }
      const type = typeof body === "object" && body !== null ? (body as { type?: unknown }).type : undefined;
      let code = typeof type === "string" && type.startsWith(PROBLEM_PREFIX) ? type.slice(PROBLEM_PREFIX.length) : undefined;
      // A 403 "forbidden" says why in `reason`: the matrix names that, so a role denial is not confused with a workflow one.
      const reason = (body as { reason?: unknown } | undefined)?.reason;
      if (code === "forbidden" && typeof reason === "string") code = reason;
      const answer: MatrixResponse = { status: res.status, body, code, headers: Object.fromEntries(res.headers) };
      this.observe?.(req, answer);
      return answer;
    }
  }

  private token(user: string): Promise<string> {
    let t = this.tokens.get(user);
    if (!t) {
      t = this.tokenFor(user);
      this.tokens.set(user, t);
    }
    return t;
  }
}
