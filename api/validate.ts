/**
 * Validation of values against the registry's small schema language
 * (api/registry/types.ts). Returns an error phrase, or null when valid.
 *
 *   validateValue({ type: "string", maxLength: 3 }, "abcd") // "must be at most 3 characters"
 */
import type { BodySchema, FieldSchema } from "./registry/types";

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export function validateValue(schema: FieldSchema, value: unknown): string | null {
  switch (schema.type) {
    case "string": {
      if (typeof value !== "string") return "must be a string";
      if (schema.minLength !== undefined && value.length < schema.minLength) return `must be at least ${schema.minLength} characters`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `must be at most ${schema.maxLength} characters`;
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return "has an invalid format";
      if (schema.format === "email" && !EMAIL.test(value)) return "must be an email address";
      if (schema.enum !== undefined && !schema.enum.includes(value)) return `must be one of ${schema.enum.join(", ")}`;
      return null;
    }
    case "integer": {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return "must be an integer";
      if (schema.minimum !== undefined && value < schema.minimum) return `must be at least ${schema.minimum}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `must be at most ${schema.maximum}`;
      return null;
    }
    case "array": {
      if (!Array.isArray(value)) return "must be an array";
      if (schema.minItems !== undefined && value.length < schema.minItems) return `must have at least ${schema.minItems} items`;
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return `must have at most ${schema.maxItems} items`;
      if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return "must not repeat items";
      for (let i = 0; i < value.length; i++) {
        const error = validateValue(schema.items, value[i]);
        if (error) return `item ${i} ${error}`;
      }
      return null;
    }
  }
}

/** Validates a body's values (field NAMES were already checked by the policy: unknown ones are field_not_writable). */
export function validateBody(schema: BodySchema, body: Record<string, unknown>): string | null {
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(body, name)) return `field ${JSON.stringify(name)} is required`;
  }
  for (const [name, value] of Object.entries(body)) {
    const field = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (!field) return `field ${JSON.stringify(name)} is not accepted by this route`;
    const error = validateValue(field, value);
    if (error) return `field ${JSON.stringify(name)} ${error}`;
  }
  return null;
}
