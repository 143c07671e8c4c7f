/**
 * Positioned compile errors with stable codes, shared by every compiler stage.
 *
 * Codes are OPA's where OPA has one, so tooling that knows OPA's errors
 * recognises ours: rego_parse_error, rego_compile_error, rego_type_error,
 * rego_unsafe_var_error, rego_recursion_error. Messages read
 * `file:row:col: code: message`.
 */
import type { Location } from "./ast";

export type CompileErrorCode = "rego_parse_error" | "rego_compile_error" | "rego_type_error" | "rego_unsafe_var_error" | "rego_recursion_error";

export class CompileError extends Error {
  constructor(
    readonly code: CompileErrorCode,
    readonly detail: string,
    readonly loc: Location,
  ) {
    super(`${loc.file}:${loc.row}:${loc.col}: ${code}: ${detail}`);
    this.name = "CompileError";
  }
}

/** Several errors found in one stage; the message lists each on its own line. */
export class CompileErrors extends Error {
  constructor(readonly errors: CompileError[]) {
    super(errors.map((e) => e.message).join("\n"));
    this.name = "CompileErrors";
  }
}
