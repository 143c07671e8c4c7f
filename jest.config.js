/** Jest runs TypeScript through SWC (type checking is `npm run typecheck`).
 *  jose is ESM-only, so it is transformed too.
 *
 *  Two projects: `sqlite` runs every suite; `postgres` runs the API and
 *  matrix suites that touch data once more against a PostgreSQL-backed app
 *  (test/api/harness.ts reads PORTCULLIS_TEST_BACKEND; each harness gets a
 *  database cloned from the migrated and seeded template). One file alone,
 *  on one backend: `npx jest test/api/invoices.test.ts --selectProjects sqlite`
 *  (the path first: --selectProjects takes every name after it).
 *
 *  The toolchain's own suites (packages/rego-wasm/test) run in the `sqlite`
 *  project too: `npx jest packages/rego-wasm`. Imports of @portcullis/rego-wasm
 *  resolve to the package's TypeScript sources (its `portcullis-source` export
 *  condition, as in tsconfig.json), so tests never run a stale dist/. */
const common = {
  testEnvironment: "node",
  testEnvironmentOptions: { customExportConditions: ["portcullis-source", "node", "node-addons"] },
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.(t|j)sx?$": ["@swc/jest"] },
  transformIgnorePatterns: ["/node_modules/(?!jose/)"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
};

/** The suites that read and write data through the API, run on PostgreSQL too (the rest are backend-free or SQLite-specific). */
const ON_POSTGRES = [
  "api/invoices.test.ts",
  "api/users.test.ts",
  "api/chain.test.ts",
  "api/record.test.ts",
  "api/admin-export-reader.test.ts",
  "api/reports-export.test.ts",
  "matrix/matrix.test.ts",
  // PostgreSQL only: its outages (describe blocks open a PostgreSQL harness themselves).
  "api/pg-outage.test.ts",
];

module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: "sqlite",
      roots: [...common.roots, "<rootDir>/packages/rego-wasm/test"],
      testMatch: ["**/*.test.ts"],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, "/test/api/pg-outage\\.test\\.ts$"],
    },
    {
      ...common,
      displayName: "postgres",
      testMatch: ON_POSTGRES.map((f) => `<rootDir>/test/${f}`),
      setupFiles: ["<rootDir>/test/support/postgres-backend.js"],
    },
  ],
};
