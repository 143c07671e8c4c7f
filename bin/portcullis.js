#!/usr/bin/env node
// The `portcullis` command: runs the compiled CLI (build first with `make build`).
require("../dist/cli/index.js")
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
