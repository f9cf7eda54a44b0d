/** Process entry of the CLI: real stdio, real signals, real exit code. */
import { processIo } from './io.ts';
import { runCli } from './program.ts';

export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), processIo());
  // Let stdout drain before exiting; a pipe reader may be slow.
  process.exitCode = code;
}
