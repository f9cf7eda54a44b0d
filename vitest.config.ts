import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Benchmarks live in test/bench/ and are run on demand, never as tests. A test that needs the
    // machine to itself (`*.alone.test.ts`) runs after the rest: vitest.alone.config.ts.
    exclude: ['test/bench/**', '**/node_modules/**', 'test/**/*.alone.test.ts'],
    // Tests spawn processes and open SQLite files: separate processes keep them apart.
    pool: 'forks',
    // A safety net, not a speed limit: tests wait for events, and on a loaded machine (load 16 on
    // 2 cores) one CLI call takes ~3 s, so a test of ten of them needs the margin.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
