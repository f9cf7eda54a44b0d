/**
 * How a shell task's command is made to die with its worker (electron/core/handlers/death-signal.ts):
 * setpriv's support for --pdeathsig is read from the binary, and agrees with running it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { supportsPdeathsig } from '../../electron/core/handlers/death-signal.ts';
import { tempDir } from '../helpers.ts';

describe('supportsPdeathsig', () => {
  it("agrees with running this machine's setpriv", (t) => {
    const file = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => fs.existsSync(f));
    if (process.platform !== 'linux' || file === undefined) {
      t.skip();
      return;
    }
    const ran = spawnSync(file, ['--pdeathsig', 'TERM', '--', 'true'], { stdio: 'ignore' });
    expect(supportsPdeathsig(file)).toBe(ran.status === 0);
  });

  it('says no for a program without the option, one that cannot run, and none at all', () => {
    const dir = tempDir();
    const old = path.join(dir, 'setpriv-old');
    fs.writeFileSync(old, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    expect(supportsPdeathsig(old)).toBe(false);
    const unrunnable = path.join(dir, 'setpriv-noexec');
    fs.writeFileSync(unrunnable, 'pdeathsig', { mode: 0o644 });
    expect(supportsPdeathsig(unrunnable)).toBe(false);
    expect(supportsPdeathsig(path.join(dir, 'missing'))).toBe(false);
  });
});
