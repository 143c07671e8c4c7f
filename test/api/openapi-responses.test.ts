/**
 * Published shapes equal real responses: every answer of an authorization
 * matrix run (every cell of every route, version and persona, plus the
 * run's setup and re-reads) and a round of malformed requests against every
 * operation, validated against the OpenAPI document the instance serves at
 * /openapi.json, with a real JSON Schema 2020-12 validator (ajv; OpenAPI 3.1
 * schemas are JSON Schema 2020-12).
 *
 * For each answer: the operation (method + path template) must be in the
 * document, its status must be documented for that operation, its media
 * type documented for that status, its body valid against that schema, and
 * documented headers present. Routes the document does not publish
 * (metrics, internal tooling) are held to the same generator's description
 * of them (generateOpenApi with `undocumented`).
 */
import * as http from "node:http";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { MatrixRequest, MatrixResponse } from "../../matrix/client";
import { generateOpenApi } from "../../api/openapi";
import { ROUTES } from "../../api/registry/routes";
import { startMatrixServer, type MatrixServer } from "../matrix/support";

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

interface Exchange {
  req: MatrixRequest;
  res: MatrixResponse;
}

let server: MatrixServer;
let published: Doc;
let everything: Doc;
const exchanges: Exchange[] = [];

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
const compiled = new Map<unknown, ValidateFunction>();

/** Component references resolved in place: each response schema compiles on its own. */
function inline(schema: unknown, doc: Doc): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc));
  if (typeof schema !== "object" || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === "string") return inline(doc.components.schemas[ref.replace("#/components/schemas/", "")], doc);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, doc)]));
}

function validatorFor(schema: unknown, doc: Doc): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(inline(schema, doc) as object);
    compiled.set(schema, v);
  }
  return v;
}

/** The template a path answers to: the one with the most literal segments wins (/invoices/export over /invoices/{invoice_id}). */
function templateOf(doc: Doc, method: string, path: string): string | undefined {
  const segments = path.split("?")[0].split("/");
  let best: { template: string; literal: number } | undefined;
  for (const [template, ops] of Object.entries(doc.paths)) {
    if (!ops[method]) continue;
    const parts = template.split("/");
    if (parts.length !== segments.length) continue;
    if (!parts.every((p, i) => p.startsWith("{") || p === segments[i])) continue;
    const literal = parts.filter((p) => !p.startsWith("{")).length;
    if (!best || literal > best.literal) best = { template, literal };
  }
  return best?.template;
}

/** Problems with one answer, or "" when it is exactly what the document says. */
function check(doc: Doc, { req, res }: Exchange): { template?: string; problem: string } {
  const method = req.method.toLowerCase();
  const template = templateOf(doc, method, req.path);
  if (!template) return { problem: "no documented operation" };
  const response = doc.paths[template][method].responses[String(res.status)];
  if (!response) return { template, problem: `status ${res.status} is not documented` };
  const mediaType = (res.headers["content-type"] ?? "").split(";")[0].trim();
  const content = response.content?.[mediaType];
  if (!content) return { template, problem: `${res.status} ${mediaType} is not documented (documented: ${Object.keys(response.content ?? {}).join(", ")})` };
  const validate = validatorFor(content.schema, doc);
  if (!validate(res.body)) return { template, problem: `${res.status} body: ${ajv.errorsText(validate.errors)}` };
  const missing = Object.keys(response.headers ?? {}).filter((h) => res.headers[h.toLowerCase()] === undefined);
  if (missing.length > 0) return { template, problem: `${res.status} lacks documented headers ${missing.join(", ")}` };
  return { template, problem: "" };
}

function rawRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const flat: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A round of malformed requests against every operation: what any route answers to a bad request. */
async function malformedRound(baseUrl: string, doc: Doc, token: string): Promise<void> {
  const send = async (req: MatrixRequest & { headers?: Record<string, string>; raw?: string }): Promise<void> => {
    const headers: Record<string, string> = { Accept: "application/json", ...req.headers };
    if (req.persona !== "anonymous") headers.Authorization = `Bearer ${req.persona === "forged" ? "eyJhbGciOiJFUzI1NiJ9.e30.AAAA" : token}`;
    // node:http, not fetch: a GET with a body is what some clients send, and fetch refuses to.
    const r = await rawRequest(new URL(req.path, baseUrl), req.method, headers, req.raw);
    const text = r.text;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the check reports the media type or the body.
    }
    exchanges.push({ req, res: { status: r.status, body, headers: r.headers } });
  };
  for (const [template, ops] of Object.entries(doc.paths)) {
    const path = template.replace("{version}", "v2").replace(/\{[a-z_]+\}/g, "inv_alice_1");
    for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
      await send({ persona: "forged", method, path }); // 401 invalid_token
      await send({ persona: "u_carol", method, path: `${path}?debug=1` }); // 400 invalid_param
      await send({ persona: "u_carol", method, path, headers: { "Api-Version": "v9" } }); // 404 unknown_version (or 400 version_conflict)
      await send({ persona: "u_carol", method, path, headers: { "Api-Version": "legacy" } }); // 410 version_retired (or 400 version_conflict)
      await send({ persona: "u_carol", method, path, headers: { "Content-Type": "text/plain" }, raw: "x" }); // 415
      await send({ persona: "u_carol", method, path, headers: { "Content-Type": "application/json" }, raw: JSON.stringify({ pad: "x".repeat(64 * 1024) }) }); // 413
    }
  }
}

beforeAll(async () => {
  server = await startMatrixServer();
  published = (await (await fetch(new URL("/openapi.json", server.baseUrl))).json()) as Doc;
  everything = generateOpenApi(ROUTES, server.harness.deps.versions, Date.now(), { undocumented: true }) as Doc;
  const report = await server.run({ observe: (req, res) => exchanges.push({ req, res }) });
  expect(report.summary.failed).toBe(0);
  await malformedRound(server.baseUrl, published, await server.harness.token("u_carol"));
}, 300_000);

afterAll(async () => server?.close());

test("every answer of the matrix run and the malformed round is what /openapi.json documents", () => {
  const failures = new Map<string, number>();
  let validated = 0;
  for (const x of exchanges) {
    // Published operations against the published document; the others against the generator's full description.
    const doc = templateOf(published, x.req.method.toLowerCase(), x.req.path) ? published : everything;
    const { template, problem } = check(doc, x);
    if (problem === "") validated++;
    else {
      const key = `${x.req.method} ${template ?? x.req.path} as ${x.req.persona}: ${problem}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
  }
  expect([...failures].map(([k, n]) => `${k} (x${n})`)).toEqual([]);
  expect(validated).toBe(exchanges.length);
  expect(validated).toBeGreaterThan(2000);
});

test("every operation of the document had a success and at least one problem validated", () => {
  const seen = new Map<string, Set<number>>();
  for (const x of exchanges) {
    const method = x.req.method.toLowerCase();
    const doc = templateOf(published, method, x.req.path) ? published : everything;
    const template = templateOf(doc, method, x.req.path);
    if (!template) continue;
    const key = `${method} ${template}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(x.res.status));
  }
  const thin: string[] = [];
  for (const [template, ops] of Object.entries(everything.paths)) {
    for (const method of Object.keys(ops)) {
      const statuses = [...(seen.get(`${method} ${template}`) ?? [])];
      if (!statuses.some((s) => s < 300) || !statuses.some((s) => s >= 400)) thin.push(`${method} ${template}: ${statuses.join(",") || "none"}`);
    }
  }
  expect(thin).toEqual([]);
});

test("the document describes every status the answers had, and only documented media types", () => {
  const statuses = new Set(exchanges.map((x) => x.res.status));
  for (const s of [200, 201, 202, 400, 401, 403, 404, 409, 410, 413, 415]) expect(statuses).toContain(s);
});
