import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'spec-conformance/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'spec-conformance/runner/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI is a loaded 2-core machine: keep parallelism modest so child-process tests stay calm.
    maxWorkers: 2,
  },
});
