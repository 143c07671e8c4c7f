/**
 * CSV text per RFC 4180: a header line, CRLF after every record, and a field
 * quoted when it holds a comma, a double quote, CR or LF (quotes doubled).
 *
 *   toCsv(["id", "number"], [{ id: "inv_1", number: "=1+1" }])
 *   // 'id,number\r\ninv_1,\'=1+1\r\n'
 */

/**
 * Formula injection (CSV injection, CWE-1236): spreadsheet programs evaluate
 * a cell starting with = + - @ (TAB and CR too, which some strip before
 * looking) as a formula, so an invoice number such as `=HYPERLINK(...)`
 * would run in the admin's spreadsheet. Such a cell gets a leading
 * apostrophe: spreadsheets then show the text as typed (OWASP's advice).
 * It applies to every cell; the exported numbers are never negative.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: null and undefined are empty; the guard runs before quoting, so a quoted cell is guarded too. */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The header (`columns`) and one record per row, each cell taken from the row by column name. */
export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  const lines = [columns.map(csvField).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvField(row[c])).join(","));
  return lines.map((line) => `${line}\r\n`).join("");
}
