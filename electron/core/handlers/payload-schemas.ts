/**
 * The built-in kinds' payload schemas, in one module that their handlers load when a payload
 * first needs one (payload.ts): a process that only enqueues or runs a shell command, a cron
 * line, then never loads zod. These stay the one definition of the rules and of the messages.
 */
import { z } from 'zod';
import { timeoutMsSchema } from '../../../shared/schemas.ts';
import { HTTP_METHODS } from './http.ts';

const text = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .refine((s) => !s.includes('\0'), { error: 'must not contain NUL characters' });

export const shellPayload = z.strictObject({
  command: text('the program to run')
    .refine((s) => s.length > 0, { error: 'must not be empty' })
    .refine((s) => s.length <= 4096, { error: 'must be at most 4096 characters' }),
  args: z
    .array(text('one argument'), { error: 'must be an array of strings' })
    .max(10_000, { error: 'must hold at most 10000 arguments' })
    .optional(),
  cwd: text('a folder').optional(),
  /** added to (and overriding) the worker's own environment */
  env: z
    .record(
      z.string().regex(/^[^=\0]+$/, { error: 'environment variable names must be non-empty and have no =' }),
      text('the variable value'),
      { error: 'must be an object of string values' },
    )
    .optional(),
  shell: z.boolean({ error: 'must be true or false' }).optional(),
});

export type ShellPayload = z.infer<typeof shellPayload>;

export const sleepPayload = z.strictObject({
  ms: z
    .number({ error: 'must be a number of milliseconds from 0 to 86400000' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(0, { error: 'must be a number of milliseconds from 0 to 86400000' })
    .max(86_400_000, { error: 'must be a number of milliseconds from 0 to 86400000' }),
});

export type SleepPayload = z.infer<typeof sleepPayload>;

const urlSchema = z
  .string({ error: 'must be a string (an http: or https: URL)' })
  .max(8192, { error: 'must be at most 8192 characters' })
  .superRefine((s, ctx) => {
    const url = URL.canParse(s) ? new URL(s) : null;
    if (!url) ctx.addIssue({ code: 'custom', message: 'must be an absolute http: or https: URL' });
    else if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: `must use http: or https:, not ${url.protocol}` });
    else if (url.username || url.password)
      ctx.addIssue({ code: 'custom', message: 'must not hold credentials; send an Authorization header' });
  });

const headersSchema = z
  .record(z.string(), z.string({ error: 'header values must be strings' }), {
    error: 'must be an object of header names to string values',
  })
  .superRefine((h, ctx) => {
    // Caught here rather than by fetch, whose TypeError would look like a network error and retry.
    for (const [name, value] of Object.entries(h)) {
      try {
        new Headers([[name, value]]);
      } catch {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid HTTP header name or value' });
      }
    }
  });

export const httpPayload = z
  .strictObject({
    method: z
      .preprocess(
        (v) => (typeof v === 'string' ? v.toUpperCase() : v),
        z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }),
      )
      .optional(),
    url: urlSchema,
    headers: headersSchema.optional(),
    /** a string is sent as is; any other JSON value is sent as JSON */
    body: z.unknown().optional(),
    expectStatus: z
      .number({ error: 'must be an HTTP status from 100 to 599' })
      .int({ error: 'must be an HTTP status from 100 to 599' })
      .min(100, { error: 'must be an HTTP status from 100 to 599' })
      .max(599, { error: 'must be an HTTP status from 100 to 599' })
      .optional(),
    timeoutMs: timeoutMsSchema.optional(),
  })
  .superRefine((p, ctx) => {
    const method = p.method ?? 'GET';
    if (p.body !== undefined && (method === 'GET' || method === 'HEAD'))
      ctx.addIssue({ code: 'custom', path: ['body'], message: `a ${method} request cannot have a body` });
  });

export type HttpPayload = z.infer<typeof httpPayload>;

const pathSchema = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .min(1, { error: `must not be empty (${what})` })
    .refine((s) => !s.includes('\0'), { error: 'must not contain NUL characters' });

export const backupPayload = z.strictObject({
  source: pathSchema('the database file to back up'),
  destDir: pathSchema('the folder for the copies'),
  keep: z
    .number({ error: 'must be a whole number of copies from 1 to 1000' })
    .int({ error: 'must be a whole number of copies from 1 to 1000' })
    .min(1, { error: 'must be a whole number of copies from 1 to 1000' })
    .max(1000, { error: 'must be a whole number of copies from 1 to 1000' })
    .optional(),
});

export type SqliteBackupPayload = z.infer<typeof backupPayload>;
