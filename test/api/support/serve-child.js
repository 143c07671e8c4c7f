/**
 * `portcullis serve` (or any other command) from the TypeScript sources, as
 * a child process the crash tests can SIGKILL: compiles `.ts` modules with SWC as they are
 * required (like pdp/log/pipelines/worker-dev.js), then runs the real CLI with the
 * arguments given, and exits with its exit code.
 *
 *   node test/api/support/serve-child.js serve --port 0 --db ... --decisions ...
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { transformSync } = require("@swc/core");

require.extensions[".ts"] = function compileTypeScript(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), {
    filename,
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
    // import() stays Node's own, as tsc emits it for dist/ (`rego --builtins` loads an ES module with it).
    module: { type: "commonjs", ignoreDynamic: true },
  });
  module._compile(code, filename);
};

require(path.join(__dirname, "../../../cli/index.ts"))
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = 2;
    },
  );
