/** The parameters of a count summary's optional `since` day filter (`$1`), refused unless YYYY-MM-DD. */
import { DbInputError } from "../types";

export function sinceDayParams(filter: { since?: unknown }): string[] {
  if (filter.since === undefined) return [];
  if (typeof filter.since !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(filter.since)) throw new DbInputError("invalid_input", "since must be a day, YYYY-MM-DD");
  return [filter.since];
}
