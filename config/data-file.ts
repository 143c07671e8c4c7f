/**
 * Data files that ship beside the code (versions.json, the matrix YAML, the
 * policy's data.json): the compiled code runs from dist/, where tsc copies
 * no data, so a path built from `__dirname` there falls back to the same
 * path in the source tree.
 *
 *   const file = dataFile(path.join(__dirname, "versions.json"));
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** `file` when it exists, else its source-tree twin when that exists, else `file` (so the error names it). */
export function dataFile(file: string): string {
  if (fs.existsSync(file)) return file;
  const fromSource = file.replace(`${path.sep}dist${path.sep}`, path.sep);
  return fs.existsSync(fromSource) ? fromSource : file;
}
