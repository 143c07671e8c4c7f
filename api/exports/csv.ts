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

/**
 * Reads CSV text as toCsv writes it (RFC 4180: quoted fields, doubled
 * quotes, CRLF after every record) back into its header and records; cells
 * keep their formula guard, so writing them again adds nothing.
 *
 *   fromCsv('id,number\r\ninv_1,"a,b"\r\n')   // { columns: ["id", "number"], rows: [{ id: "inv_1", number: "a,b" }] }
 */
export function fromCsv(text: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  if (quoted || field !== "" || record.length > 0) throw new Error("CSV text does not end with a complete record");
  const [columns = [], ...body] = records;
  return { columns, rows: body.map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j] ?? ""]))) };
}
