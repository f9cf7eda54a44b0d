import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Benchmarks live in test/bench/ and are run on demand, never as tests.
    exclude: ['test/bench/**', '**/node_modules/**'],
    // Tests spawn processes and open SQLite files: separate processes keep them apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
