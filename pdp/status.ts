/**
 * What the PDP reports about its bundles (for a health endpoint and for
 * operators): the active bundle, the last load error, and counters.
 *
 *   pdp.status() // { active: { revision, loadedAt, source, entrypoints } | null,
 *                //   lastError: { code, message, at } | null, reloads, failures }
 *
 * `reloads` counts bundles activated since start, the first one included;
 * `failures` counts failed load attempts (unreachable source, refused
 * bundle). `lastError` is what is wrong NOW, so a refused bundle is visible
 * while the old one keeps deciding, and health is ok again once it is not:
 * - a refused bundle stays the error until a bundle is activated, or the
 *   source hands back the active bundle's bytes;
 * - an unreachable source is the error until the source is read again
 *   (whatever it then holds; a refused bundle that is still there is the
 *   error again).
 */
import type { Engine } from "./engine";
import type { BundleFailureCode } from "./errors";

export interface ActiveBundleStatus {
  revision: string;
  /** RFC 3339. */
  loadedAt: string;
  /** The bundle file path or the bundle URL without credentials or query. */
  source: string;
  entrypoints: string[];
}

export interface PdpStatus {
  active: ActiveBundleStatus | null;
  lastError: { code: BundleFailureCode; message: string; at: string } | null;
  reloads: number;
  failures: number;
}

type BundleError = NonNullable<PdpStatus["lastError"]>;

export class StatusTracker {
  private state: PdpStatus = { active: null, lastError: null, reloads: 0, failures: 0 };
  /**
   * The last bundle refused, kept apart from an unreachable source: when the
   * source is reached again, the refusal (if the active bundle is still not
   * what it holds) is the error again, not hidden by the recovery.
   */
  private refusal: BundleError | null = null;

  activated(engine: Engine): void {
    this.state.active = {
      revision: engine.revision,
      loadedAt: engine.loadedAt.toISOString(),
      source: engine.source,
      entrypoints: engine.entrypoints,
    };
    this.refusal = null;
    this.state.lastError = null;
    this.state.reloads++;
  }

  failed(code: BundleFailureCode, message: string): void {
    const error = { code, message, at: new Date().toISOString() };
    if (code !== "bundle_unavailable") this.refusal = error;
    this.state.lastError = error;
    this.state.failures++;
  }

  /** The source was read again and holds what was last delivered; `isActive`: that is the active bundle. */
  reachable(isActive: boolean): void {
    if (isActive) this.refusal = null;
    this.state.lastError = this.refusal;
  }

  /** A copy: callers cannot change the PDP's state through it. */
  snapshot(): PdpStatus {
    const { active, lastError, reloads, failures } = this.state;
    return {
      active: active && { ...active, entrypoints: [...active.entrypoints] },
      lastError: lastError && { ...lastError },
      reloads,
      failures,
    };
  }
}
