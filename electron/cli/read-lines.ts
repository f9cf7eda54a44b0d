import type { Readable } from 'node:stream';

/** The lines of a stream, without their line endings. */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  // Loaded here: only `enqueue --stdin` reads lines, and every enqueue loads this module.
  const { default: readline } = await import('node:readline');
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } finally {
    rl.close();
  }
}
