/**
 * A kind's payload schema. A user's module gives a zod schema; the built-in kinds give theirs
 * lazily, with a plain-code check of the common shape first, so that a process that enqueues or
 * runs a shell command (every cron line) never loads zod: it was about a sixth of such a start
 * (test/bench/RESULTS.md, section 8). The schema stays the one definition of the rules and of
 * the error messages: a quick check only answers "valid, and here is what the schema would give".
 */
import type { z } from 'zod';
import type { parseInput } from '../../../shared/schemas.ts';

export class LazyPayload<P> {
  private loaded: z.ZodType<P> | undefined;
  private loading: Promise<z.ZodType<P>> | undefined;

  private readonly loader: () => Promise<z.ZodType<P>>;
  /** the schema's output for a payload of the common shape, or undefined: ask the schema */
  readonly quick: (input: unknown) => P | undefined;

  constructor(
    loader: () => Promise<z.ZodType<P>>,
    quick: (input: unknown) => P | undefined = () => undefined,
  ) {
    this.loader = loader;
    this.quick = quick;
  }

  /** The schema once loaded, else undefined. */
  get schema(): z.ZodType<P> | undefined {
    return this.loaded;
  }

  load(): Promise<z.ZodType<P>> {
    return (this.loading ??= this.loader().then((s) => (this.loaded = s)));
  }
}

export type PayloadSchema<P> = z.ZodType<P> | LazyPayload<P>;

/**
 * The payload as its schema parses it, or the schema's error thrown. Synchronous unless a
 * schema (or, with `prefix`, the error formatter) must be loaded first: then a promise. Without
 * `prefix` the error is zod's own; with it, a ValidationError naming the field under `prefix`.
 */
export function readPayload<P>(schema: PayloadSchema<P>, input: unknown, prefix?: string): P | Promise<P> {
  if (schema instanceof LazyPayload) {
    const quick = schema.quick(input);
    if (quick !== undefined) return quick;
    const loaded = schema.schema;
    if (!loaded) return schema.load().then((s) => readPayload(s, input, prefix));
    schema = loaded;
  }
  if (prefix === undefined) return schema.parse(input);
  const plain = schema;
  if (!formatter) return loadFormatter().then((parse) => parse(plain, input, prefix));
  return formatter(plain, input, prefix);
}

let formatter: typeof parseInput | undefined;
const loadFormatter = async () => (formatter ??= (await import('../../../shared/schemas.ts')).parseInput);
