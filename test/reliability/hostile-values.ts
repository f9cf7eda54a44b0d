/**
 * Hostile values for the fuzz tests at every boundary (contract, IPC, HTTP, CLI), and a snapshot
 * of what a refused request must leave exactly as it was.
 */
import fc from 'fast-check';
import type { Engine } from '../../electron/core/engine.ts';

export const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'constructor', 'prototype', '\uD800', '\uDFFF\uD800', '', ' ', '../..', '\0'),
  fc.string({ minLength: 1000, maxLength: 300_000 }).map((s) => s.slice(0, 300_000)),
);
export const hostileNumber = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER + 2, -1, 1e308, 0.5),
  fc.integer(),
  fc.double(),
);
export const deep = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const pollution = fc.constantFrom(
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}'),
  JSON.parse('{"kind": "sleep", "payload": {"ms": 1, "__proto__": {"polluted": true}}}'),
);
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    pollution,
    fc.constantFrom(deep(5000), [deep(40)]),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('kind', 'payload', 'ids', 'name', 'cron', 'everyMs', 'task')),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

/** Almost-valid inputs: real field names with hostile values, so the schemas' inner checks run. */
export const nearValid = fc.record(
  {
    kind: fc.oneof(fc.constantFrom('sleep', 'shell', 'http', 'sqlite-backup'), hostileString),
    name: hostileValue,
    group: hostileValue,
    priority: hostileNumber,
    maxAttempts: hostileNumber,
    timeout: hostileValue,
    delay: hostileNumber,
    runAt: hostileValue,
    payload: fc.oneof(
      hostileValue,
      fc.record({ ms: hostileNumber }, { requiredKeys: [] }),
      fc.record({ command: hostileValue, args: hostileValue }, { requiredKeys: [] }),
      fc.record({ url: hostileValue, method: hostileValue }, { requiredKeys: [] }),
    ),
    ids: fc.array(hostileNumber, { maxLength: 3 }),
    cron: fc.oneof(hostileString, fc.constantFrom('* * * * *', '61 * * * *', '0 0 30 2 *', '@daily')),
    everyMs: hostileNumber,
    timezone: fc.oneof(hostileString, fc.constantFrom('UTC', 'Europe/Berlin')),
    task: hostileValue,
  },
  { requiredKeys: [] },
);

/** Everything a request can write: tasks, schedules, settings, groups. */
export async function snapshot(engine: Engine): Promise<string> {
  const { settings, groups } = await engine.stats(0);
  return JSON.stringify([
    await engine.listTasks({ limit: 1000 }),
    (await engine.listSchedules()).map(({ upcoming: _, ...s }) => s), // upcoming moves with the clock
    settings,
    groups,
  ]);
}
