/**
 * The users repository on PostgreSQL: db/users.ts's methods and checks, in
 * parameterized SQL, every *Scoped statement run with the scope's tenant set
 * for row-level security (session.ts) AND filtered by the scope in its WHERE
 * clause (scope.ts): the policy is the second wall, never the only one.
 */
import { randomBytes } from "node:crypto";
import { checkId, checkLimit, checkOneOf, checkQuery, likeContains } from "../sql";
import type { AsyncUsersRepository } from "../store";
import { DbInputError, INVITABLE_ROLES, SETTABLE_USER_STATUSES, ScopeError, type Scope, type UserRow } from "../types";
import { checkDisplayName, checkEmail, checkLocale, type UserIdentity } from "../users";
import { pgScopeFilter, pgErrorCode } from "./scope";
import type { Session } from "./session";

const COLUMNS =
  "id, tenant_id, email, display_name, locale, role, is_admin, account_credit_cents, support_priority, billing_plan, internal_notes, status, created_at";

/** The only writable profile fields, and their columns. */
const UPDATABLE: Record<string, { column: "display_name" | "locale"; check: (v: unknown) => string }> = {
  displayName: { column: "display_name", check: checkDisplayName },
  locale: { column: "locale", check: checkLocale },
};

export function pgUsersRepository(session: Session): AsyncUsersRepository {
  const getScoped = async (userId: string, scope: Scope): Promise<UserRow | undefined> => {
    const filter = pgScopeFilter("users", scope);
    const { rows } = await session.scoped<UserRow>(filter.tenantId, `SELECT ${COLUMNS} FROM users WHERE id = $1 AND ${filter.sql(2)}`, [
      checkId(userId, "userId"),
      ...filter.params,
    ]);
    return rows[0];
  };

  return {
    async findIdentity(userId) {
      if (typeof userId !== "string" || userId === "") return undefined;
      // Before any tenant is known: the SECURITY DEFINER lookup, four columns only (migrations.ts, version 5).
      const { rows } = await session.query<UserIdentity>("SELECT id, tenant_id, role, status FROM portcullis_find_identity($1)", [userId]);
      return rows[0];
    },

    getScoped,

    async updateScoped(userId, scope, changes) {
      const filter = pgScopeFilter("users", scope);
      const id = checkId(userId, "userId");
      if (typeof changes !== "object" || changes === null) throw new DbInputError("invalid_input", "changes must be an object");
      const sets: string[] = [];
      const values: string[] = [];
      for (const [key, value] of Object.entries(changes)) {
        const field = Object.hasOwn(UPDATABLE, key) ? UPDATABLE[key] : undefined;
        if (field === undefined) throw new DbInputError("unknown_field", `field ${JSON.stringify(key)} cannot be updated`);
        if (value === undefined) continue;
        values.push(field.check(value));
        sets.push(`${field.column} = $${values.length}`);
      }
      // Nothing to write: answer like a read, still through the scope.
      if (sets.length === 0) return getScoped(id, scope);
      const { rows } = await session.scoped<UserRow>(
        filter.tenantId,
        `UPDATE users SET ${sets.join(", ")} WHERE id = $${values.length + 1} AND ${filter.sql(values.length + 2)} RETURNING ${COLUMNS}`,
        [...values, id, ...filter.params],
      );
      return rows[0];
    },

    async setStatusScoped(userId, scope, status) {
      const filter = pgScopeFilter("users", scope);
      const next = checkOneOf(status, SETTABLE_USER_STATUSES, "status");
      const { rows } = await session.scoped<UserRow>(filter.tenantId, `UPDATE users SET status = $1 WHERE id = $2 AND ${filter.sql(3)} RETURNING ${COLUMNS}`, [
        next,
        checkId(userId, "userId"),
        ...filter.params,
      ]);
      return rows[0];
    },

    async inviteScoped(scope, invite) {
      const filter = pgScopeFilter("users", scope);
      // An owner-scoped caller may only reach its own row; a new user can never be that row.
      if (filter.params.length > 1) throw new ScopeError("inviteScoped needs a tenant-wide scope (no owner_id)");
      if (typeof invite !== "object" || invite === null) throw new DbInputError("invalid_input", "invite must be an object");
      const email = checkEmail(invite.email);
      const role = checkOneOf(invite.role, INVITABLE_ROLES, "role");
      const id = "u_" + randomBytes(9).toString("base64url");
      const displayName = email.slice(0, email.indexOf("@")).slice(0, 100);
      try {
        const { rows } = await session.scoped<UserRow>(
          filter.tenantId,
          `INSERT INTO users (id, tenant_id, email, display_name, role, status) VALUES ($1, $2, $3, $4, $5, 'invited') RETURNING ${COLUMNS}`,
          [id, filter.tenantId, email, displayName, role],
        );
        return rows[0];
      } catch (err) {
        if (pgErrorCode(err) === "23505") throw new DbInputError("conflict", "a user with this email already exists in the tenant");
        if (pgErrorCode(err) === "23503") throw new ScopeError("scope.tenant_id names no tenant");
        throw err;
      }
    },

    async searchScoped(scope, q, limit) {
      const filter = pgScopeFilter("users", scope);
      const pattern = likeContains(checkQuery(q));
      const n = filter.params.length;
      // ILIKE: SQLite's LIKE ignores ASCII case; with COLLATE "C" columns, so does ILIKE here (and only ASCII, like SQLite).
      const { rows } = await session.scoped<UserRow>(
        filter.tenantId,
        `SELECT ${COLUMNS} FROM users WHERE ${filter.sql(1)} AND (email ILIKE $${n + 1} ESCAPE '\\' OR display_name ILIKE $${n + 1} ESCAPE '\\') ORDER BY display_name, id LIMIT $${n + 2}`,
        [...filter.params, pattern, checkLimit(limit)],
      );
      return rows;
    },
  };
}
