/** The name a shell task gets from its command line when none is given, cut safely to a label. */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { sandbox } from './cli-sandbox.ts';

describe('the default name of a shell task', () => {
  it('is its command line cut on a character boundary, never half an emoji or a lone surrogate', async () => {
    const { engine, run } = await sandbox();
    const long = `a${'😀'.repeat(150)}`; // 301 UTF-16 units: a cut at 200 splits an emoji
    for (const words of [[long], ['echo', '\uD800x']]) {
      const o = await run(['--json', 'enqueue', '--', ...words]);
      expect(o.code, o.err).toBe(0);
      const task = await engine.getTask((JSON.parse(o.out) as Task).id);
      expect(task.name.length).toBeLessThanOrEqual(200);
      expect(task.name).not.toMatch(/\p{Cs}/u);
      expect(task.payload).toMatchObject({ command: words[0], args: words.slice(1) });
    }
  });
});
