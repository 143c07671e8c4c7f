/** The strict decision shape: what is accepted, and each way a result is refused as invalid_decision. */
import { PdpError } from "../../pdp/errors";
import type { Actor } from "../../pdp/types";
import { validateDecision } from "../../pdp/validate";

const tenantActor: Actor = { id: "u_alice", tenant: "t_acme", roles: ["member"] };
const anonymous: Actor = { id: "anonymous", tenant: null, roles: [] };

const allow = () => ({ allow: true, status: 200, reason: "ok", scope: { tenant_id: "t_acme", owner_id: "u_alice" }, fields: { read: ["id"], write: [] } });
const deny = () => ({ allow: false, status: 404, reason: "not_found", scope: {}, fields: { read: [], write: [] } });

function refusal(value: unknown, actor: Actor = tenantActor): string {
  try {
    validateDecision(value, actor);
  } catch (err) {
    expect(err).toBeInstanceOf(PdpError);
    expect((err as PdpError).code).toBe("invalid_decision");
    return (err as Error).message;
  }
  throw new Error("accepted");
}

describe("validateDecision", () => {
  test("accepts a scoped allow and a deny, and returns a copy", () => {
    const value = allow();
    const d = validateDecision(value, tenantActor);
    expect(d).toEqual(value);
    value.fields.read.push("secret");
    expect(d.fields.read).toEqual(["id"]);
    expect(validateDecision(deny(), tenantActor)).toEqual(deny());
  });

  test("an allow without a tenant scope is fine for an actor with no tenant", () => {
    expect(validateDecision({ ...allow(), scope: {} }, anonymous).allow).toBe(true);
  });

  test.each<[string, unknown, string]>([
    ["undefined", undefined, "undefined"],
    ["not an object", true, "decision must be an object"],
    ["an array", [allow()], "decision must be an object"],
    ["allow not boolean", { ...allow(), allow: "true" }, "allow must be a boolean"],
    ["status missing", { ...deny(), status: undefined }, "status"],
    ["status fractional", { ...deny(), status: 403.5 }, "status"],
    ["status out of range", { ...deny(), status: 600 }, "status"],
    ["reason empty", { ...deny(), reason: "" }, "reason"],
    ["scope missing", { ...deny(), scope: undefined }, "scope must be an object"],
    ["scope with an unknown key", { ...allow(), scope: { tenantId: "t_acme" } }, 'unknown key "tenantId"'],
    ["scope value not a string", { ...allow(), scope: { tenant_id: 7 } }, "scope.tenant_id"],
    ["scope value empty", { ...allow(), scope: { tenant_id: "t_acme", owner_id: "" } }, "scope.owner_id"],
    ["fields.read not strings", { ...allow(), fields: { read: [1], write: [] } }, "fields.read"],
    // A hole is no string: every() skipped it, and the copy handed the API an undefined field name.
    // eslint-disable-next-line no-sparse-arrays
    ["fields.read with a hole", { ...allow(), fields: { read: ["id", , "number"], write: [] } }, "fields.read"],
    ["fields.write missing", { ...allow(), fields: { read: [] } }, "fields.write"],
    ["fields with an unknown key", { ...allow(), fields: { read: [], write: [], admin: [] } }, 'unknown key "admin"'],
    ["an unknown top-level key", { ...allow(), obligations: [] }, 'unknown key "obligations"'],
    ["allow with status 201", { ...allow(), status: 201 }, "status 200"],
    ["deny with status 200", { ...deny(), status: 200 }, "4xx or 5xx"],
    ["deny with a redirect", { ...deny(), status: 302 }, "4xx or 5xx"],
    ["unscoped allow for a tenant-bound actor", { ...allow(), scope: { owner_id: "u_alice" } }, "scope.tenant_id"],
  ])("refuses %s", (_name, value, message) => {
    expect(refusal(value)).toContain(message);
  });

  describe("a result the engine shares (deep-frozen)", () => {
    const frozen = <T>(value: T): T => {
      if (typeof value === "object" && value !== null) {
        for (const v of Object.values(value)) frozen(v);
        Object.freeze(value);
      }
      return value;
    };

    test("is checked once: the same frozen decision comes back, and it cannot be edited", () => {
      const value = frozen(allow());
      const d = validateDecision(value, tenantActor);
      expect(d).toEqual(value);
      expect(validateDecision(value, tenantActor)).toBe(d);
      expect(Object.isFrozen(d) && Object.isFrozen(d.scope) && Object.isFrozen(d.fields) && Object.isFrozen(d.fields.read)).toBe(true);
      expect(() => (d.fields.read as string[]).push("secret")).toThrow(TypeError);
    });

    test("the tenant-bound actor's rule still runs on every call", () => {
      const unscoped = frozen({ ...allow(), scope: { owner_id: "u_alice" } });
      expect(validateDecision(unscoped, anonymous).allow).toBe(true);
      expect(refusal(unscoped, tenantActor)).toContain("scope.tenant_id");
      expect(validateDecision(unscoped, anonymous).allow).toBe(true);
    });

    test("a refused one is refused every time", () => {
      const value = frozen({ ...allow(), status: 201 });
      expect(refusal(value)).toContain("status 200");
      expect(refusal(value)).toContain("status 200");
    });

    test("a frozen value read through a getter is checked on every call", () => {
      let allowed = true;
      const value = Object.freeze({
        get allow() {
          return allowed;
        },
        status: 200,
        reason: "ok",
        scope: Object.freeze({ tenant_id: "t_acme" }),
        fields: Object.freeze({ read: Object.freeze(["id"]), write: Object.freeze([]) }),
      });
      expect(validateDecision(value, tenantActor).allow).toBe(true);
      allowed = false;
      expect(refusal(value)).toContain("4xx or 5xx");
    });

    test("a value frozen only in part is checked and copied on every call", () => {
      const value = Object.freeze(allow());
      const d = validateDecision(value, tenantActor);
      value.fields.read.push("secret");
      expect(d.fields.read).toEqual(["id"]);
      expect(validateDecision(value, tenantActor).fields.read).toEqual(["id", "secret"]);
    });
  });
});
