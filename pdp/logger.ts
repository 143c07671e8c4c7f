/**
 * Structured operational log of the PDP (bundle loads, refusals, failed
 * decisions): one JSON object per line, `event` names what happened.
 *
 * Entries carry codes, messages, revisions and sanitised sources only; never
 * an input, a token or a bundle server credential.
 */
export interface LogEntry {
  level: "info" | "warn" | "error";
  /** Stable name of what happened, e.g. `pdp.bundle_activated`. */
  event: string;
  [field: string]: unknown;
}

export type Logger = (entry: LogEntry) => void;

/** Info to stdout, warnings and errors to stderr, each a JSON line with a timestamp. */
export const consoleLogger: Logger = (entry) => {
  const line = JSON.stringify({ time: new Date().toISOString(), ...entry });
  if (entry.level === "info") console.log(line);
  else console.error(line);
};
