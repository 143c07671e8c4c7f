/**
 * Entry file of the policy runtime: everything exported here becomes an
 * export of build/runtime.wasm, which the policy linker resolves by name
 * (see compiler/runtime-contract.ts). Owned by the runtime core; each
 * builtin family adds its one `export *` line below when its module compiles.
 */

// --- runtime core (allocator, values, JSON, OPA ABI, rt_* helpers)
export { __heap_start } from "./rt";
export * from "./abi";
export * from "./ctx";
export { rt_input_decode, rt_result_code } from "./binary";
export * from "./ops";
export { rt_memo_push, rt_memo_pop } from "./memo";
export * from "./print";
export { rt_host_builtin0, rt_host_builtin1, rt_host_builtin2, rt_host_builtin3, rt_host_builtin4 } from "./host";

// --- natively compiled builtins (bi_*), one line per family
export * from "./builtins/strings-search";
export * from "./builtins/strings-split";
export * from "./builtins/strings-edit";
export * from "./builtins/go-template/builtins";
export * from "./builtins/sprintf";
export * from "./builtins/encoding";
export * from "./builtins/url-query";
export * from "./builtins/compare";
export * from "./builtins/types";
export * from "./builtins/arithmetic";
export * from "./builtins/bits";
export * from "./builtins/aggregates";
export * from "./builtins/member";
export * from "./builtins/sets";
export * from "./builtins/arrays";
export * from "./builtins/objects";
export * from "./builtins/json";
export * from "./builtins/json-patch";
export * from "./builtins/json-schema/builtins";
export * from "./builtins/time/builtins";
export * from "./builtins/regex/builtins";
export * from "./builtins/glob";
export * from "./builtins/globs-match";
export * from "./builtins/walk";
export * from "./builtins/template-string";
export * from "./builtins/graph";
export * from "./builtins/crypto";
export * from "./builtins/jwt";
export * from "./builtins/semver";
export * from "./builtins/net";
export * from "./builtins/uuid";
export * from "./builtins/units";
export * from "./builtins/providers";
export * from "./builtins/trace";
