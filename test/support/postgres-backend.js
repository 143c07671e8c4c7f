// jest.config.js's `postgres` project: the API harness opens a PostgreSQL-backed app (test/api/harness.ts).
process.env.PORTCULLIS_TEST_BACKEND = "postgres";
