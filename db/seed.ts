/**
 * Seed data for a new database: two tenants, every role twice, invoices in
 * varied states.
 *
 * The ids are STABLE: the authorization matrix, the API tests and tools
 * outside this repository address rows by them. The private columns
 * (internal_notes, credits, plans, priorities) hold distinctive values on
 * purpose, so a leak of a field or of a foreign row is visible in a test.
 * Timestamps are fixed so listings sort the same on every machine.
 */
import type Database from "better-sqlite3";

export const SEED_TENANTS = [
  { id: "t_acme", name: "Acme" },
  { id: "t_globex", name: "Globex" },
] as const;

interface SeedUser {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string;
  locale: string;
  role: "member" | "support" | "admin";
  account_credit_cents: number;
  support_priority: "standard" | "priority" | "vip";
  billing_plan: "free" | "team" | "business" | "enterprise";
  internal_notes: string;
  created_at: string;
}

export const SEED_USERS: readonly SeedUser[] = [
  {
    id: "u_alice",
    tenant_id: "t_acme",
    email: "alice@acme.example",
    display_name: "Alice Archer",
    locale: "en-US",
    role: "member",
    account_credit_cents: 12_500,
    support_priority: "priority",
    billing_plan: "team",
    internal_notes: "SECRET-alice: churn risk, offered 20% retention discount",
    created_at: "2026-01-05T09:00:00.000Z",
  },
  {
    id: "u_bob",
    tenant_id: "t_acme",
    email: "bob@acme.example",
    display_name: "Bob Baker",
    locale: "en-GB",
    role: "member",
    account_credit_cents: 0,
    support_priority: "standard",
    billing_plan: "free",
    internal_notes: "SECRET-bob: disputed a charge in March",
    created_at: "2026-01-06T09:00:00.000Z",
  },
  {
    id: "u_carol",
    tenant_id: "t_acme",
    email: "carol@acme.example",
    display_name: "Carol Chen",
    locale: "en-US",
    role: "admin",
    account_credit_cents: 50_000,
    support_priority: "vip",
    billing_plan: "enterprise",
    internal_notes: "SECRET-carol: billing contact, signs renewals",
    created_at: "2026-01-02T09:00:00.000Z",
  },
  {
    id: "u_frank",
    tenant_id: "t_acme",
    email: "frank@acme.example",
    display_name: "Frank Fischer",
    locale: "de-DE",
    role: "support",
    account_credit_cents: 0,
    support_priority: "standard",
    billing_plan: "team",
    internal_notes: "SECRET-frank: on-call support lead",
    created_at: "2026-01-03T09:00:00.000Z",
  },
  {
    id: "u_heidi",
    tenant_id: "t_acme",
    email: "heidi@acme.example",
    display_name: "Heidi Hansen",
    locale: "da-DK",
    role: "admin",
    account_credit_cents: 7_700,
    support_priority: "priority",
    billing_plan: "business",
    internal_notes: "SECRET-heidi: security officer, MFA enforced",
    created_at: "2026-01-04T09:00:00.000Z",
  },
  {
    id: "u_dave",
    tenant_id: "t_globex",
    email: "dave@globex.example",
    display_name: "Dave Dawson",
    locale: "en-US",
    role: "member",
    account_credit_cents: 99_900,
    support_priority: "vip",
    billing_plan: "enterprise",
    internal_notes: "SECRET-dave: largest Globex account, legal hold",
    created_at: "2026-02-01T10:00:00.000Z",
  },
  {
    id: "u_erin",
    tenant_id: "t_globex",
    email: "erin@globex.example",
    display_name: "Erin Evans",
    locale: "en-US",
    role: "admin",
    account_credit_cents: 3_000,
    support_priority: "priority",
    billing_plan: "business",
    internal_notes: "SECRET-erin: Globex tenant owner",
    created_at: "2026-01-30T10:00:00.000Z",
  },
  {
    id: "u_grace",
    tenant_id: "t_globex",
    email: "grace@globex.example",
    display_name: "Grace Garcia",
    locale: "es-ES",
    role: "support",
    account_credit_cents: 0,
    support_priority: "standard",
    billing_plan: "team",
    internal_notes: "SECRET-grace: escalations only",
    created_at: "2026-01-31T10:00:00.000Z",
  },
  {
    id: "u_ivan",
    tenant_id: "t_globex",
    email: "ivan@globex.example",
    display_name: "Ivan Ivanov",
    locale: "ru-RU",
    role: "member",
    account_credit_cents: 450,
    support_priority: "standard",
    billing_plan: "free",
    internal_notes: "SECRET-ivan: flagged for manual fraud review",
    created_at: "2026-02-02T10:00:00.000Z",
  },
];

interface SeedInvoice {
  id: string;
  tenant_id: string;
  owner_id: string;
  number: string;
  amount_cents: number;
  currency: string;
  status: "draft" | "pending" | "approved" | "published" | "refunded";
  internal_notes: string;
  created_at: string;
}

export const SEED_INVOICES: readonly SeedInvoice[] = [
  {
    id: "inv_alice_1",
    tenant_id: "t_acme",
    owner_id: "u_alice",
    number: "ACME-2026-0001",
    amount_cents: 129_900,
    currency: "USD",
    status: "approved",
    internal_notes: "SECRET-inv_alice_1: approved by carol over budget",
    created_at: "2026-03-01T12:00:00.000Z",
  },
  {
    id: "inv_alice_2",
    tenant_id: "t_acme",
    owner_id: "u_alice",
    number: "ACME-2026-0002",
    amount_cents: 45_000,
    currency: "USD",
    status: "pending",
    internal_notes: "SECRET-inv_alice_2: awaiting PO number",
    created_at: "2026-03-15T12:00:00.000Z",
  },
  {
    id: "inv_alice_3",
    tenant_id: "t_acme",
    owner_id: "u_alice",
    number: "ACME-2026-0005",
    amount_cents: 8_000,
    currency: "USD",
    status: "draft",
    internal_notes: "SECRET-inv_alice_3: draft, do not send",
    created_at: "2026-04-02T12:00:00.000Z",
  },
  {
    id: "inv_bob_1",
    tenant_id: "t_acme",
    owner_id: "u_bob",
    number: "ACME-2026-0003",
    amount_cents: 23_400,
    currency: "GBP",
    status: "pending",
    internal_notes: "SECRET-inv_bob_1: customer disputes line 2",
    created_at: "2026-03-20T12:00:00.000Z",
  },
  {
    id: "inv_bob_2",
    tenant_id: "t_acme",
    owner_id: "u_bob",
    number: "ACME-2026-0004",
    amount_cents: 5_000,
    currency: "GBP",
    status: "published",
    internal_notes: "SECRET-inv_bob_2: published late",
    created_at: "2026-03-25T12:00:00.000Z",
  },
  {
    id: "inv_dave_1",
    tenant_id: "t_globex",
    owner_id: "u_dave",
    number: "GLX-2026-0001",
    amount_cents: 990_000,
    currency: "EUR",
    status: "pending",
    internal_notes: "SECRET-inv_dave_1: legal hold, do not refund",
    created_at: "2026-03-02T08:00:00.000Z",
  },
  {
    id: "inv_dave_2",
    tenant_id: "t_globex",
    owner_id: "u_dave",
    number: "GLX-2026-0002",
    amount_cents: 15_000,
    currency: "EUR",
    status: "refunded",
    internal_notes: "SECRET-inv_dave_2: refunded after outage",
    created_at: "2026-03-10T08:00:00.000Z",
  },
  {
    id: "inv_ivan_1",
    tenant_id: "t_globex",
    owner_id: "u_ivan",
    number: "GLX-2026-0003",
    amount_cents: 61_000,
    currency: "EUR",
    status: "approved",
    internal_notes: "SECRET-inv_ivan_1: fraud review pending",
    created_at: "2026-03-18T08:00:00.000Z",
  },
  // Staff own invoices too (expenses billed to the tenant), so the matrix tests staff on their OWN rows:
  // support's are published (a self-refund the policy let through would really happen), admins' start the workflow.
  {
    id: "inv_frank_1",
    tenant_id: "t_acme",
    owner_id: "u_frank",
    number: "ACME-2026-0006",
    amount_cents: 3_200,
    currency: "USD",
    status: "published",
    internal_notes: "SECRET-inv_frank_1: support agent's own expense, never self-refund",
    created_at: "2026-04-05T12:00:00.000Z",
  },
  {
    id: "inv_carol_1",
    tenant_id: "t_acme",
    owner_id: "u_carol",
    number: "ACME-2026-0007",
    amount_cents: 250_000,
    currency: "USD",
    status: "pending",
    internal_notes: "SECRET-inv_carol_1: admin's own conference travel",
    created_at: "2026-04-08T12:00:00.000Z",
  },
  {
    id: "inv_heidi_1",
    tenant_id: "t_acme",
    owner_id: "u_heidi",
    number: "ACME-2026-0008",
    amount_cents: 14_900,
    currency: "GBP",
    status: "draft",
    internal_notes: "SECRET-inv_heidi_1: security audit retainer, unsent",
    created_at: "2026-04-10T12:00:00.000Z",
  },
  {
    id: "inv_grace_1",
    tenant_id: "t_globex",
    owner_id: "u_grace",
    number: "GLX-2026-0004",
    amount_cents: 7_500,
    currency: "EUR",
    status: "published",
    internal_notes: "SECRET-inv_grace_1: escalation desk equipment",
    created_at: "2026-04-03T08:00:00.000Z",
  },
  {
    id: "inv_erin_1",
    tenant_id: "t_globex",
    owner_id: "u_erin",
    number: "GLX-2026-0005",
    amount_cents: 88_000,
    currency: "EUR",
    status: "pending",
    internal_notes: "SECRET-inv_erin_1: tenant owner's consulting fee",
    created_at: "2026-04-06T08:00:00.000Z",
  },
];

/** Inserts the seed rows; the caller runs it inside the migration transaction. */
export function seed(db: Database.Database): void {
  const tenant = db.prepare("INSERT INTO tenants (id, name, created_at) VALUES (@id, @name, '2026-01-01T00:00:00.000Z')");
  for (const t of SEED_TENANTS) tenant.run(t);
  const user = db.prepare(
    `INSERT INTO users (id, tenant_id, email, display_name, locale, role, account_credit_cents, support_priority, billing_plan, internal_notes, status, created_at)
     VALUES (@id, @tenant_id, @email, @display_name, @locale, @role, @account_credit_cents, @support_priority, @billing_plan, @internal_notes, 'active', @created_at)`,
  );
  for (const u of SEED_USERS) user.run(u);
  const invoice = db.prepare(
    `INSERT INTO invoices (id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at)
     VALUES (@id, @tenant_id, @owner_id, @number, @amount_cents, @currency, @status, @internal_notes, @created_at)`,
  );
  for (const i of SEED_INVOICES) invoice.run(i);
}
