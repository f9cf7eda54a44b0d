/**
 * The real `semaforo` binary, spawned, answers hostile argv as runCli does in-process
 * (hostile-argv.test.ts): same exit code, same first line, nothing written; bytes that are not
 * UTF-8 arrive as U+FFFD and are refused.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../cli/cli-helpers.ts';
import { outputOf } from '../process-output.ts';
import { expectCleanRefusal, sandbox } from './cli-sandbox.ts';

describe('the real binary', () => {
  it('answers hostile argv as runCli does: same exit code, same first line, nothing written', async () => {
    const cases: string[][] = [
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--priority=__proto__'],
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--priority', '99999999999999999999999'],
      ['enqueue', '--kind', 'sleep', '--payload', `{"ms":${'['.repeat(30_000)}${']'.repeat(30_000)}}`],
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--timeout', 'Infinity'],
      ['list', '--limit', '-0', '--bogus'],
    ];
    const { db, engine, run } = await sandbox();
    const spawned = await Promise.all(cases.map((args) => cli(args, { db })));
    for (const [i, args] of cases.entries()) {
      const inProcess = await run(args);
      const real = spawned[i]!;
      expect(real.code, args.join(' ').slice(0, 100)).toBe(inProcess.code);
      expect(real.stderr.split('\n')[0]).toBe(inProcess.err.split('\n')[0]);
      expectCleanRefusal({ code: real.code ?? -1, out: real.stdout, err: real.stderr }, args);
    }
    // Bytes that are not UTF-8 (here a lone 0xFF, put in argv by the shell) arrive as U+FFFD.
    const bad = await outputOf(
      spawn(
        '/bin/sh',
        [
          '-c',
          `exec "$0" "$1" --db "$2" enqueue --kind sleep --payload '{"ms":0}' --group "x$(printf '\\377')"`,
          process.execPath,
          BIN,
          db,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SEMAFORO_HOME: path.dirname(db) } },
      ),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^semaforo: --group: must be 1-64 letters/);
    expect((await engine.listTasks()).total).toBe(0);
  }, 60_000);
});
