/**
 * `list` and `show` print what tasks carry (names, commands, errors, output) with terminal control
 * sequences shown as escapes: a task must not be able to clear the screen, retitle the window or
 * reorder the text of whoever reads the queue. --json stays exact.
 */
import { describe, expect, it } from 'vitest';
import type { TaskWithHistory } from '../../shared/domain.ts';
import { cli, freshDb, json } from '../cli/cli-helpers.ts';

describe('terminal escapes in list and show', () => {
  it('are printed as visible escapes, never raw', async () => {
    const db = freshDb();
    const name = 'nice\x1b]0;pwned\x07name\u202e';
    const script =
      "process.stdout.write('\\x1b[2J\\x1b[Hcleared'); process.stderr.write('\\x9b31m'); process.exit(3)";
    const e = await cli(
      ['enqueue', '--name', name, '--max-attempts', '1', '--', process.execPath, '-e', script],
      { db },
    );
    expect(e.code, e.stderr).toBe(0);
    await cli(['work', '--drain'], { db });
    for (const args of [['list'], ['show', '1']]) {
      const r = await cli(args, { db });
      expect(r.code).toBe(0);
      for (const raw of ['\x1b', '\x07', '\x9b', '\u202e']) expect(r.stdout).not.toContain(raw);
      expect(r.stdout).toContain('nice\\x1b]0;pwned\\x07name\\u202e');
    }
    const show = (await cli(['show', '1'], { db })).stdout;
    expect(show).toContain('| \\x1b[2J\\x1b[Hcleared');
    // JSON is for programs: exact, with JSON's own escapes.
    const t = json<TaskWithHistory>(await cli(['--json', 'show', '1'], { db }));
    expect(t.name).toBe(name);
  });
});
