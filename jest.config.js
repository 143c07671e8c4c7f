/** Jest runs TypeScript through SWC (type checking is `npm run typecheck`).
 *  jose is ESM-only, so it is transformed too. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.(t|j)sx?$": ["@swc/jest"] },
  transformIgnorePatterns: ["/node_modules/(?!jose/)"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  testTimeout: 60000,
};
