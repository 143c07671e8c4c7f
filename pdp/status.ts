/**
 * What the PDP reports about its bundles (for a health endpoint and for
 * operators): the active bundle, the last load error, and counters.
 *
 *   pdp.status() // { active: { revision, loadedAt, source, entrypoints } | null,
 *                //   lastError: { code, message, at } | null, reloads, failures }
 *
 * `reloads` counts bundles activated since start, the first one included;
 * `failures` counts failed load attempts (unreachable source, refused
 * bundle). `lastError` stays until the next successful activation clears it,
 * so a refused bundle is visible while the old one keeps deciding.
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

export class StatusTracker {
  private state: PdpStatus = { active: null, lastError: null, reloads: 0, failures: 0 };

  activated(engine: Engine): void {
    this.state.active = {
      revision: engine.revision,
      loadedAt: engine.loadedAt.toISOString(),
      source: engine.source,
      entrypoints: engine.entrypoints,
    };
    this.state.lastError = null;
    this.state.reloads++;
  }

  failed(code: BundleFailureCode, message: string): void {
    this.state.lastError = { code, message, at: new Date().toISOString() };
    this.state.failures++;
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
