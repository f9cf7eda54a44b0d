/** Parsing with a schema into one ValidationError that names every bad field. */
import type { z } from 'zod';
import { ValidationError, formatPath } from '../errors.ts';

/**
 * Parses `input` with `schema`, or throws one ValidationError listing every problem, each with
 * its field path (prefixed with `prefix`, e.g. `tasks[3]`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const tail = formatPath(issue.path);
    const path =
      prefix && tail ? (tail.startsWith('[') ? prefix + tail : `${prefix}.${tail}`) : prefix || tail;
    return { path, message: issue.message };
  });
  // One bad value can fail several checks that share a message (1e23 is neither an integer nor
  // at most 9): say it once, or the one-line error reads "priority: …; priority: …".
  const seen = new Set<string>();
  throw new ValidationError(
    issues.filter((i) => {
      const key = `${i.path}\0${i.message}`;
      return !seen.has(key) && Boolean(seen.add(key));
    }),
  );
}
