// Lint (issue 22 item 5): ESLint's and typescript-eslint's recommended rules
// on every TypeScript folder, and prettier's formatting checked; `make lint`,
// run by `make test` (`make format` rewrites). No stylistic rule lives here.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "**/dist/", "var/", "**/build/", "packages/rego-wasm/runtime/assembly/", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name`: unused on purpose (Express's 4-argument error handler, a property left out by destructuring).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // A response listener reads `this` once into `res`, the name every other step uses.
      "@typescript-eslint/no-this-alias": ["error", { allowedNames: ["res"] }],
      // Prettier's own layout of chained calls (`request(app)\n  [method](...)`); every statement ends in a semicolon, so no ASI hazard remains.
      "no-unexpected-multiline": "off",
    },
  },
  {
    // The toolchain is a package (packages/rego-wasm, issue 22 item 4): the service reaches it only through its
    // public entries, so what the package may change freely stays its own business.
    files: ["**/*.ts"],
    ignores: ["packages/rego-wasm/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/packages/rego-wasm", "**/packages/rego-wasm/**"],
              message: 'Import the toolchain as "@portcullis/rego-wasm" (its public API, packages/rego-wasm/index.ts).',
            },
            {
              group: ["@portcullis/rego-wasm/*", "!@portcullis/rego-wasm/conformance"],
              message: 'Only "@portcullis/rego-wasm" and "@portcullis/rego-wasm/conformance" are public; export what you need from the package\'s index.ts.',
            },
          ],
        },
      ],
    },
  },
);
