import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** The tests that need the machine to themselves (real load), one file at a time, after the rest. */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/**/*.alone.test.ts'],
    exclude: ['**/node_modules/**'],
    fileParallelism: false,
  },
});
