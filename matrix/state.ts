/**
 * What the run knows about the data it changes, and how it re-reads it
 * THROUGH THE API (never the database), as a persona who may read it.
 *
 * How state-changing cells stay harmless to later cells (and to later runs
 * against the same instance):
 * - invoice workflow (approve, publish, refund): the run reads every
 *   catalogue invoice's status first and keeps a model of it. An allowed
 *   cell expects 200 when the row is in a start state of the transition and
 *   409 `conflict` otherwise (the policy let it through, the row is left as
 *   it is); after every cell the row is re-read and compared with the model.
 *   Route order in the matrix file (publish before refund) makes each
 *   transition happen for real at least once on fresh seed data.
 * - moderation (suspend, disable, ban): an allowed same-tenant cell targets
 *   a "victim" the run invites first, never a persona; denied cells target
 *   personas, re-read by the target's own GET /users/me (200 = still active).
 * - users.invite: every cell invites a unique address; the re-read is a
 *   search by that address in each tenant (found once when allowed, never
 *   when denied).
 * - users.me.update: the profile is read before and after; a changed
 *   profile is patched back to what it was, so the next cell starts equal.
 * - export jobs (admin.export.get): none is seeded, so each tenant's first
 *   reader starts one before the cells run; cells read those jobs.
 */
import type { MatrixClient } from "./client";
import type { Matrix } from "./model";

export interface Profile {
  displayName?: unknown;
  locale?: unknown;
}

export class WorldState {
  readonly invoiceStatus = new Map<string, string>();
  readonly victims = new Map<string, string>();
  /** tenant -> the export job the run started there. */
  readonly exportJobs = new Map<string, string>();
  private turn = 0;

  constructor(private readonly client: MatrixClient, private readonly matrix: Matrix, private readonly run: string) {}

  /** Reads the starting status of every catalogue invoice; invites one victim and starts one export job per tenant when cells need them. */
  async setup(needs: { victims: boolean; exportJobs: boolean }): Promise<string[]> {
    const problems: string[] = [];
    for (const id of Object.keys(this.matrix.objects.invoice ?? {})) {
      const status = await this.readInvoice(id);
      if (status === undefined) problems.push(`setup: invoice ${id} cannot be read by its tenant's reader`);
      else this.invoiceStatus.set(id, status);
    }
    if (needs.exportJobs) problems.push(...(await this.startExportJobs()));
    if (!needs.victims) return problems;
    for (const tenant of Object.keys(this.matrix.readers)) {
      const admin = this.matrix.readers[tenant][0];
      const res = await this.client.send({
        persona: admin, method: "POST", path: "/users/invite", version: "v2",
        body: { email: `matrix-victim-${this.run}-${tenant.replace(/_/g, "-")}@example.test`, displayName: `Matrix victim ${this.run}` },
      });
      const id = (res.body as { id?: unknown } | undefined)?.id;
      if (res.status === 201 && typeof id === "string") this.victims.set(tenant, id);
      else problems.push(`setup: ${admin} could not invite a moderation victim in ${tenant} (${res.status} ${res.code ?? ""})`);
    }
    return problems;
  }

  private async startExportJobs(): Promise<string[]> {
    const problems: string[] = [];
    for (const [tenant, readers] of Object.entries(this.matrix.readers)) {
      const res = await this.client.send({ persona: readers[0], method: "POST", path: "/api/admin/export", version: "v2", body: { format: "json" } });
      const id = (res.body as { id?: unknown } | undefined)?.id;
      if (res.status === 202 && typeof id === "string") this.exportJobs.set(tenant, id);
      else problems.push(`setup: ${readers[0]} could not start an export job in ${tenant} (${res.status} ${res.code ?? ""})`);
    }
    return problems;
  }

  /** A cell's object id: victims and export jobs are the ones setup created (undefined when setup could not). */
  resolve(object: string | undefined): string | undefined {
    if (object?.startsWith("victim:")) return this.victims.get(object.slice("victim:".length));
    if (object?.startsWith("export:")) return this.exportJobs.get(object.slice("export:".length));
    return object;
  }

  /** An invoice's status, read by an admin of its tenant (readers take turns: their rate budgets are per actor). */
  async readInvoice(id: string): Promise<string | undefined> {
    const tenant = this.matrix.objects.invoice?.[id]?.tenant;
    const readers = tenant ? this.matrix.readers[tenant] ?? [] : [];
    if (readers.length === 0) return undefined;
    const reader = readers[this.turn++ % readers.length];
    const res = await this.client.send({ persona: reader, method: "GET", path: `/invoices/${encodeURIComponent(id)}`, version: "v2" });
    const status = (res.body as { status?: unknown } | undefined)?.status;
    return res.status === 200 && typeof status === "string" ? status : undefined;
  }

  /** GET /users/me as the user: the HTTP status (403 account_inactive once moderated) and the profile. */
  async readProfile(user: string): Promise<{ status: number; code?: string; profile: Profile }> {
    const res = await this.client.send({ persona: user, method: "GET", path: "/users/me", version: "v2" });
    return { status: res.status, code: res.code, profile: (res.body ?? {}) as Profile };
  }

  /** Puts a profile back as it was before a cell changed it. */
  async restoreProfile(user: string, before: Profile): Promise<void> {
    await this.client.send({ persona: user, method: "PATCH", path: "/users/me", version: "v2", body: { displayName: before.displayName, locale: before.locale } });
  }

  /** How many users each tenant's reader finds by a search text: {tenant: count}. */
  async findUsers(text: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [tenant, readers] of Object.entries(this.matrix.readers)) {
      const res = await this.client.send({ persona: readers[0], method: "GET", path: `/api/v2/search?q=${encodeURIComponent(text)}&limit=100` });
      const results = (res.body as { results?: Array<{ type?: string }> } | undefined)?.results;
      out[tenant] = res.status === 200 && Array.isArray(results) ? results.filter((r) => r.type === "user").length : -1;
    }
    return out;
  }
}
