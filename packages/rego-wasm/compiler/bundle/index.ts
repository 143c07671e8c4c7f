/** OPA bundles (bundle.tar.gz): see `bundle.ts`; the tar codec is `tar.ts`. */
export { BundleError, bundleFilePath, readBundle, writeBundle } from "./bundle";
export type { Bundle, BundleInput, BundleSource, Manifest, WasmResolver } from "./bundle";
export { checkMaxPages, describePages, loadSizedPolicy, MAX_MEMORY_PAGES, MemoryLimitError, PAGE_BYTES, policyMemory } from "./memory";
export type { SizedLoadOptions } from "./memory";
export { regoVersionForFile } from "./rego-version";
