/**
 * The users repository. Everything except findIdentity reads and writes
 * THROUGH a scope (`id = ? AND tenant_id = ? [AND id = owner]`: a user row's
 * owner is the user). Writes touch only the columns their method names:
 * updateScoped maps two fields to two columns from a fixed table and refuses
 * any other key, so a mass-assignment slip upstream (isAdmin, role, credit)
 * fails loudly instead of writing.
 */
import { randomBytes } from "node:crypto";
import { scopeFilter } from "./scope";
import { checkId, checkLimit, checkOneOf, checkQuery, likeContains, type Prepare } from "./sql";
import { DbInputError, INVITABLE_ROLES, SETTABLE_USER_STATUSES, ScopeError, type Scope, type SettableUserStatus, type UserRow } from "./types";

export interface UserIdentity {
  id: string;
  tenant_id: string;
  role: string;
  status: string;
}

export interface UsersRepository {
  /** Authentication only: role/tenant/status of a verified token's subject. Unscoped by design. */
  findIdentity(userId: string): UserIdentity | undefined;
  getScoped(userId: string, scope: Scope): UserRow | undefined;
  updateScoped(userId: string, scope: Scope, changes: { displayName?: string; locale?: string }): UserRow | undefined;
  setStatusScoped(userId: string, scope: Scope, status: SettableUserStatus): UserRow | undefined;
  inviteScoped(scope: Scope, invite: { email: string; role: "member" | "support" }): UserRow;
  searchScoped(scope: Scope, q: string, limit: number): UserRow[];
}

const COLUMNS =
  "id, tenant_id, email, display_name, locale, role, is_admin, account_credit_cents, support_priority, billing_plan, internal_notes, status, created_at";

/** The only writable profile fields, and their columns. */
const UPDATABLE: Record<string, { column: "display_name" | "locale"; check: (v: unknown) => string }> = {
  displayName: { column: "display_name", check: checkDisplayName },
  locale: { column: "locale", check: checkLocale },
};

// Control and bidi-override characters in a name end up in admin screens and terminals.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export function checkDisplayName(value: unknown): string {
  if (typeof value !== "string") throw new DbInputError("invalid_input", "displayName must be a string");
  const name = value.trim();
  if (name.length < 1 || name.length > 100 || UNSAFE_TEXT.test(name)) {
    throw new DbInputError("invalid_input", "displayName must be 1-100 printable characters");
  }
  return name;
}

export function checkLocale(value: unknown): string {
  if (typeof value !== "string" || !/^[a-z]{2,3}(-[A-Z][a-z]{3})?(-(?:[A-Z]{2}|\d{3}))?$/.test(value)) {
    throw new DbInputError("invalid_input", "locale must be a language tag such as en-US");
  }
  return value;
}

export function checkEmail(value: unknown): string {
  if (typeof value !== "string") throw new DbInputError("invalid_input", "email must be a string");
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !/^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(email)) {
    throw new DbInputError("invalid_input", "email is not a valid address");
  }
  return email;
}

function isConstraint(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}

export function usersRepository(prepare: Prepare): UsersRepository {
  const getScoped = (userId: string, scope: Scope): UserRow | undefined => {
    const filter = scopeFilter("users", scope);
    return prepare(`SELECT ${COLUMNS} FROM users WHERE id = ? AND ${filter.sql}`).get(checkId(userId, "userId"), ...filter.params) as UserRow | undefined;
  };

  return {
    findIdentity(userId) {
      if (typeof userId !== "string" || userId === "") return undefined;
      return prepare("SELECT id, tenant_id, role, status FROM users WHERE id = ?").get(userId) as UserIdentity | undefined;
    },

    getScoped,

    updateScoped(userId, scope, changes) {
      const filter = scopeFilter("users", scope);
      const id = checkId(userId, "userId");
      if (typeof changes !== "object" || changes === null) throw new DbInputError("invalid_input", "changes must be an object");
      const sets: string[] = [];
      const values: string[] = [];
      for (const [key, value] of Object.entries(changes)) {
        const field = Object.hasOwn(UPDATABLE, key) ? UPDATABLE[key] : undefined;
        if (field === undefined) throw new DbInputError("unknown_field", `field ${JSON.stringify(key)} cannot be updated`);
        if (value === undefined) continue;
        sets.push(`${field.column} = ?`);
        values.push(field.check(value));
      }
      // Nothing to write: answer like a read, still through the scope.
      if (sets.length === 0) return getScoped(id, scope);
      return prepare(`UPDATE users SET ${sets.join(", ")} WHERE id = ? AND ${filter.sql} RETURNING ${COLUMNS}`).get(...values, id, ...filter.params) as
        UserRow | undefined;
    },

    setStatusScoped(userId, scope, status) {
      const filter = scopeFilter("users", scope);
      const next = checkOneOf(status, SETTABLE_USER_STATUSES, "status");
      return prepare(`UPDATE users SET status = ? WHERE id = ? AND ${filter.sql} RETURNING ${COLUMNS}`).get(
        next,
        checkId(userId, "userId"),
        ...filter.params,
      ) as UserRow | undefined;
    },

    inviteScoped(scope, invite) {
      const filter = scopeFilter("users", scope);
      // An owner-scoped caller may only reach its own row; a new user can never be that row.
      if (filter.params.length > 1) throw new ScopeError("inviteScoped needs a tenant-wide scope (no owner_id)");
      const tenantId = filter.params[0];
      if (typeof invite !== "object" || invite === null) throw new DbInputError("invalid_input", "invite must be an object");
      const email = checkEmail(invite.email);
      const role = checkOneOf(invite.role, INVITABLE_ROLES, "role");
      const id = "u_" + randomBytes(9).toString("base64url");
      const displayName = email.slice(0, email.indexOf("@")).slice(0, 100);
      try {
        return prepare(`INSERT INTO users (id, tenant_id, email, display_name, role, status) VALUES (?, ?, ?, ?, ?, 'invited') RETURNING ${COLUMNS}`).get(
          id,
          tenantId,
          email,
          displayName,
          role,
        ) as UserRow;
      } catch (err) {
        if (isConstraint(err, "SQLITE_CONSTRAINT_UNIQUE")) throw new DbInputError("conflict", "a user with this email already exists in the tenant");
        if (isConstraint(err, "SQLITE_CONSTRAINT_FOREIGNKEY")) throw new ScopeError("scope.tenant_id names no tenant");
        throw err;
      }
    },

    searchScoped(scope, q, limit) {
      const filter = scopeFilter("users", scope);
      const pattern = likeContains(checkQuery(q));
      return prepare(
        `SELECT ${COLUMNS} FROM users WHERE ${filter.sql} AND (email LIKE ? ESCAPE '\\' OR display_name LIKE ? ESCAPE '\\') ORDER BY display_name, id LIMIT ?`,
      ).all(...filter.params, pattern, pattern, checkLimit(limit)) as UserRow[];
    },
  };
}
