/**
 * A failed shell task's error names its command, and that error is a notification's body and the
 * webhook's task.error: the command's credentials must not reach it, through the CLI as a user
 * would run it.
 */
import { describe, expect, it } from 'vitest';
import type { Task, TaskWithHistory } from '../../shared/domain.ts';
import { cli, freshDb, json } from './cli-helpers.ts';

describe('a failed task error, credentials hidden', { timeout: 120_000 }, () => {
  it('names the failed command without the secrets in its args or its --shell script', async () => {
    const db = freshDb();
    const secrets = ['-H', 'Authorization: Bearer SECRETHDR', 'https://me:SECRETPW@e.com/x?token=SECRETQ'];
    const a = json<Task>(
      await cli(
        [
          ...['--json', 'enqueue', '--max-attempts', '1', '--'],
          ...['sh', '-c', 'echo denied >&2; exit 3', 'sh', ...secrets],
        ],
        { db },
      ),
    );
    const b = json<Task>(
      await cli(
        [
          ...['--json', 'enqueue', '--max-attempts', '1', '--shell', '--'],
          'echo denied >&2; exit 4 # --token SECRETOPT',
        ],
        { db },
      ),
    );
    expect((await cli(['work', '--drain'], { db })).code).toBe(1);

    const failed = json<Task[]>(await cli(['--json', 'list', '--status', 'failed'], { db }));
    const errors = new Map(failed.map((t) => [t.id, t.error ?? '']));
    // still says which command, how it ended and why
    expect(errors.get(a.id)).toBe(
      '"sh -c echo denied >&2; exit 3 sh -H Authorization: *** https://me:***@e.com/x?token=***" exited with code 3: denied',
    );
    expect(errors.get(b.id)).toBe('"echo denied >&2; exit 4 # --token ***" exited with code 4: denied');
    for (const id of [a.id, b.id]) {
      const shown = json<TaskWithHistory>(await cli(['--json', 'show', String(id)], { db }));
      expect(JSON.stringify([shown.error, shown.history])).not.toMatch(/SECRET/);
      // the payload is the command as typed, shown as such; every other line is free of it
      const lines = (await cli(['show', String(id)], { db })).stdout.split('\n');
      expect(lines.filter((l) => !/^ {2}payload /.test(l)).join('\n')).not.toMatch(/SECRET/);
    }
    expect((await cli(['list'], { db })).stdout).not.toMatch(/SECRET/);
  });
});
