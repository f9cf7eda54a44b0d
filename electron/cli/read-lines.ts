import readline from 'node:readline';
import type { Readable } from 'node:stream';

/** The lines of a stream, without their line endings. */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } finally {
    rl.close();
  }
}
