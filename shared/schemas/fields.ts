/**
 * The field schemas the input schemas are built from: names, bounded integers, durations,
 * priorities, payloads and times. Each says its range in the words its error shows.
 */
import { z } from 'zod';
import type { JsonValue } from '../domain.ts';
import { checkJson } from '../json.ts';
import { durationProblem, formatDuration, parseDuration } from '../durations.ts';
import { LIMITS, NAME_RE } from '../limits.ts';

export const nameLike = (what: string) =>
  z.string({ error: `must be a string` }).regex(NAME_RE, {
    error: `must be 1-64 letters, digits or . _ : - and start with a letter or digit (a ${what} name)`,
  });

export const kindSchema = nameLike('kind');
export const groupNameSchema = nameLike('group');

export const intIn = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

/** A per-attempt time limit in milliseconds, as handler payloads and modules give it. */
export const timeoutMsSchema = z
  .number({ error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` })
  .int({ error: 'must be a whole number of milliseconds' })
  .min(1, { error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` })
  .max(LIMITS.timeoutMs.max, { error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` });

/** A duration in milliseconds (0 up to 100 years). */
export const durationSchema = intIn(0, 100 * 365 * 24 * 3600_000);

/** Milliseconds in a range, refused in words a person reads (`from 1s to 366d`), ms after. */
export const msIn = (min: number, max: number) => {
  const error = `must be from ${formatDuration(min)} to ${formatDuration(max)} (${min} to ${max} milliseconds)`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/**
 * A duration in a field whose name does not say its unit (`timeout`, `delay`): text such as
 * "30s" only. A bare number is refused: 600 meant seconds to one writer and milliseconds to
 * another; the message points at the `...Ms` field that takes milliseconds.
 */
export const durationTextSchema = <N extends boolean = false>(
  msField: string,
  min: number,
  max: number,
  nullable?: N,
) =>
  z.unknown().transform((v, ctx): N extends true ? number | null : number => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (v === null && nullable) return null as never;
    if (typeof v !== 'string')
      return fail(`use a duration like "30s" or a number of milliseconds in ${msField}`);
    const ms = parseDuration(v);
    if (ms === null) return fail(`"${v}" ${durationProblem(v)}`);
    if (ms < min || ms > max) return fail(`must be from ${formatDuration(min)} to ${formatDuration(max)}`);
    return ms as never;
  });

export const prioritySchema = intIn(LIMITS.priority.min, LIMITS.priority.max);

// Optional before the transform: zod refuses a missing key for a bare transform ("expected
// nonoptional"), so `{"kind":"sleep"}` without a payload would fail with no useful message.
export const payloadSchema = z
  .unknown()
  .optional()
  .transform((value, ctx): JsonValue => {
    const checked = checkJson(value === undefined ? {} : value, LIMITS.payload);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.message });
      return z.NEVER;
    }
    return value === undefined ? {} : (value as JsonValue);
  });

/** A time: epoch milliseconds or an ISO 8601 string with a time zone (`2026-12-02T03:47:00Z`). */
export const instantSchema = z.union(
  [z.number().int().min(0), z.iso.datetime({ offset: true, local: false }).transform((s) => Date.parse(s))],
  { error: 'must be an ISO 8601 time with a zone (e.g. 2026-12-02T03:47:00Z) or epoch milliseconds' },
);

export const WELL_FORMED = { error: 'must be valid Unicode text (it holds a lone surrogate)' };
