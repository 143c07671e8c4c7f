/**
 * Worker bootstrap for running from TypeScript sources (Jest): compiles
 * `.ts` modules with SWC as they are required, then runs worker.ts. The
 * built service never uses this file; it starts dist/pdp/log/pipelines/worker.js.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { transformSync } = require("@swc/core");

require.extensions[".ts"] = function compileTypeScript(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), {
    filename,
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
    module: { type: "commonjs" },
  });
  module._compile(code, filename);
};

require(path.join(__dirname, "worker.ts"));
