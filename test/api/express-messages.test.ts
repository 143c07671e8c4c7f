/**
 * The service's HTTP server (api/http/server.ts) builds each request and
 * response on the prototype Express would move it to (express-messages.ts),
 * so Express's per-request Object.setPrototypeOf changes nothing. Checked
 * here over real sockets: the messages arrive on the app's prototypes
 * before Express sees them, they read exactly as Express's own (methods,
 * getters, instanceof, constructor), a second server for the same app does
 * not lengthen the chain, another server's requests still get Express's
 * prototypes, and the service answers byte for byte as through supertest
 * (node's own classes): a 200, a problem+json, their headers in order.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express } from "express";
import request from "supertest";
import { expressMessages } from "../../api/http/express-messages";
import { DEFAULT_HTTP_LIMITS } from "../../api/http/limits";
import { createHttpServer, type HttpService } from "../../api/http/server";
import { startHarness, type Harness } from "./harness";

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** One raw HTTP/1.1 exchange: the status line, the header lines in order, and the body. */
async function exchange(port: number, path: string, headers: Record<string, string> = {}): Promise<{ head: string[]; body: string }> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get({ host: "127.0.0.1", port, path, headers, agent: false }, resolve).on("error", reject),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const head = [`${res.statusCode} ${res.statusMessage}`];
  for (let i = 0; i < res.rawHeaders.length; i += 2) head.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  return { head, body: Buffer.concat(chunks).toString("utf8") };
}

describe("an Express app behind the service's server", () => {
  let app: Express;
  let service: HttpService;
  let port: number;
  /** What each request looked like when node's server handed it over, before Express's app.handle ran. */
  const arrived: Array<{ req: boolean; res: boolean }> = [];
  beforeAll(async () => {
    app = express();
    app.get("/probe/:id", (req, res) => {
      res.json({
        id: req.params.id,
        path: req.path,
        host: req.get("host"),
        accepts: req.accepts(["html", "json"]),
        requestIsMessage: req instanceof http.IncomingMessage,
        responseIsResponse: res instanceof http.ServerResponse,
        requestConstructor: req.constructor === http.IncomingMessage,
        responseConstructor: res.constructor === http.ServerResponse,
        app: req.app === app && res.app === app,
      });
    });
    service = createHttpServer(app, { limits: DEFAULT_HTTP_LIMITS, logger: () => undefined });
    service.server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      arrived.push({ req: Object.getPrototypeOf(req) === app.request, res: Object.getPrototypeOf(res) === app.response });
    });
    port = await listen(service.server);
  });
  afterAll(async () => service.drain());

  it("hands Express requests and responses already on its prototypes", async () => {
    arrived.length = 0;
    const { head, body } = await exchange(port, "/probe/a%20b", { accept: "application/json" });
    expect(head[0]).toBe("200 OK");
    expect(arrived).toEqual([{ req: true, res: true }]);
    expect(JSON.parse(body)).toEqual({
      id: "a b",
      path: "/probe/a%20b",
      host: `127.0.0.1:${port}`,
      accepts: "json",
      requestIsMessage: true,
      responseIsResponse: true,
      requestConstructor: true,
      responseConstructor: true,
      app: true,
    });
  });

  it("puts the classes' prototypes in front of Express's, once per app", () => {
    const messages = expressMessages(app);
    expect(expressMessages(app)).toBe(messages);
    expect(messages.IncomingMessage.prototype).toBe(app.request);
    expect(messages.ServerResponse.prototype).toBe(app.response);
    // app.request -> the app's own request object (with `app`) -> Express's request -> node's.
    const expressOwn = Object.getPrototypeOf(app.request) as object;
    expect(Object.getOwnPropertyNames(app.request)).toEqual([]);
    expect(Object.hasOwn(expressOwn, "app")).toBe(true);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(expressOwn))).toBe(http.IncomingMessage.prototype);
    expect(Object.getOwnPropertyNames(app.response)).toEqual([]);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(app.response)))).toBe(http.ServerResponse.prototype);
  });

  it("a second server for the same app builds the same messages", async () => {
    const before = app.request;
    const second = createHttpServer(app, { limits: DEFAULT_HTTP_LIMITS, logger: () => undefined });
    expect(app.request).toBe(before);
    const { head } = await exchange(await listen(second.server), "/probe/x");
    expect(head[0]).toBe("200 OK");
    await second.drain();
  });

  it("requests from a server of node's own classes still get Express's prototypes", async () => {
    const res = await request(app).get("/probe/y").set("accept", "application/json");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: "y", accepts: "json", requestConstructor: true, responseConstructor: true, app: true });
  });
});

describe("the service behind its server answers as through node's own classes", () => {
  let h: Harness;
  let service: HttpService;
  let port: number;
  let alice: string;
  beforeAll(async () => {
    h = await startHarness();
    service = createHttpServer(h.app, { limits: DEFAULT_HTTP_LIMITS, logger: h.deps.logger });
    port = await listen(service.server);
    alice = `Bearer ${await h.token("u_alice")}`;
  });
  afterAll(async () => {
    await service.drain();
    await h.close();
  });

  /** The same exchange through supertest (an ephemeral server of node's default classes). */
  async function viaSupertest(path: string, headers: Record<string, string>): Promise<{ head: string[]; body: string }> {
    const res = await request(h.app)
      .get(path)
      .set(headers)
      .buffer(true)
      .parse((r, done) => {
        let text = "";
        r.setEncoding("utf8");
        r.on("data", (c: string) => (text += c));
        r.on("end", () => done(null, text));
      });
    const raw = (res as unknown as { res: http.IncomingMessage }).res;
    const head = [`${res.status} ${raw.statusMessage}`];
    for (let i = 0; i < raw.rawHeaders.length; i += 2) head.push(`${raw.rawHeaders[i]}: ${raw.rawHeaders[i + 1]}`);
    return { head, body: res.body as string };
  }

  /** Decision ids, dates and the connection handling differ per exchange; everything else must not. */
  const comparable = (r: { head: string[]; body: string }) => ({
    head: r.head
      .filter((line) => !/^(date|connection|keep-alive):/i.test(line))
      .map((line) => line.replace(/;r=\d+;/, ";r=<remaining>;").replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")),
    body: r.body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>"),
  });

  it.each([
    ["an invoice the caller owns", "/invoices/inv_alice_1", true],
    ["another tenant's invoice (problem+json)", "/invoices/inv_globex_1", true],
    ["no token (problem+json)", "/invoices/inv_alice_1", false],
    ["no such route", "/nowhere", true],
  ])("%s", async (_what, path, withToken) => {
    const headers: Record<string, string> = withToken ? { authorization: alice } : {};
    const mine = await exchange(port, path, headers);
    const theirs = await viaSupertest(path, headers);
    expect(comparable(mine)).toEqual(comparable(theirs));
    expect(mine.head[0]).toMatch(/^(200|401|404) /);
  });
});
