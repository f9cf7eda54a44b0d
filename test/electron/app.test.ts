/**
 * The tray app end to end, with Playwright's Electron driver. Runs where Electron's binary exists
 * (after `npm run build`); elsewhere it says `skipped:` and checks the launcher's one-line refusal.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnNode, exited, tempDir } from '../helpers.ts';
// The type of the window's `semaforo` bridge, which the page code below calls.
import type {} from '../../renderer/api/ipc-transport.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const electronDir = path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
const pathTxt = path.join(electronDir, 'path.txt');
const binary = fs.existsSync(pathTxt)
  ? path.join(electronDir, 'dist', fs.readFileSync(pathTxt, 'utf8').trim())
  : null;
const hasElectron = binary !== null && fs.existsSync(binary);
const mainJs = path.join(root, 'dist/app/electron/main/main.js');
if (!hasElectron)
  process.stdout.write(
    'skipped: no Electron binary (the electron package downloads it on first use: `npx install-electron`)\n',
  );

describe.skipIf(hasElectron)('npm start without an Electron binary', () => {
  it('prints one clear line pointing to semaforo serve and exits 1', async () => {
    // Set as in CI: without it the launcher would first try to download the binary.
    const child = spawnNode([path.join(root, 'bin/desktop.js')], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    expect(await exited(child)).toBe(1);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/Electron's binary is not installed.*npx semaforo serve/);
    // npx passes what follows the command to it: install.js reads no flag.
    expect(err).toContain('run `npx install-electron` with internet');
  });
});

describe.skipIf(!hasElectron || !fs.existsSync(mainJs))('the tray app (Electron)', () => {
  it('launches, enqueues a failing task through the window, turns the tray red and notifies', async () => {
    const { _electron } = await import('playwright-core');
    const home = tempDir();
    const app = await _electron.launch({
      executablePath: binary!,
      // The app folder, as `npm start` passes it (package.json's name and `main` apply).
      args: [root],
      env: { ...process.env, SEMAFORO_HOME: home },
    });
    try {
      const page = await app.firstWindow();
      await page.waitForLoadState('domcontentloaded');
      const notified = app.evaluate(
        ({ Notification }) =>
          new Promise<string>((resolve) => {
            const show = Notification.prototype.show;
            Notification.prototype.show = function (this: Electron.Notification) {
              resolve(this.title);
              show.call(this);
            };
          }),
      );
      // Through the window's own bridge, as the New task form does.
      await page.evaluate(() =>
        globalThis.window.semaforo!.request('enqueue', {
          kind: 'shell',
          name: 'e2e failure',
          maxAttempts: 1,
          payload: { command: 'semaforo-e2e-no-such-command' },
        }),
      );
      expect(await notified).toBe('Task failed: e2e failure');
      await page.screenshot({ path: path.join(root, 'test-results/screenshots/electron-window.png') });
    } finally {
      await app.close();
    }
  });
});
