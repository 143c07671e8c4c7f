/** OPA bundles (bundle.tar.gz): see `bundle.ts`; the tar codec is `tar.ts`. */
export { BundleError, readBundle, writeBundle } from "./bundle";
export type { Bundle, BundleInput, BundleSource, Manifest, WasmResolver } from "./bundle";
