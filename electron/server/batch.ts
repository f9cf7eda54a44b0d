/**
 * POST /api/batch: several requests in one round trip. A dashboard screen refreshes its counts,
 * its running tasks and its charts together on one change event; sent one by one they are three
 * requests a second for as long as the screen is open. Each item runs as if it came alone
 * (validated, answered or refused by itself), one after another in the order given.
 */
import { z } from 'zod';
import type { ErrorInfo } from '../../shared/errors.ts';
import { parseInput } from '../../shared/schemas.ts';

export const MAX_BATCH = 20;

const batchSchema = z
  .array(
    z.strictObject({ name: z.string({ error: 'must be a request name' }).max(64), input: z.unknown() }),
    {
      error: 'must be an array of {name, input}',
    },
  )
  .min(1, { error: 'must hold at least one request' })
  .max(MAX_BATCH, { error: `must hold at most ${MAX_BATCH} requests` });

export type BatchAnswer = { value: unknown } | { error: ErrorInfo; status: number };

export async function runBatch(
  input: unknown,
  run: (name: string, input: unknown) => Promise<unknown>,
  describe: (err: unknown) => { status: number; info: ErrorInfo },
): Promise<BatchAnswer[]> {
  const items = parseInput(batchSchema, input);
  const answers: BatchAnswer[] = [];
  for (const item of items) {
    try {
      answers.push({ value: (await run(item.name, item.input ?? undefined)) ?? null });
    } catch (err) {
      const { status, info } = describe(err);
      answers.push({ error: info, status });
    }
  }
  return answers;
}
