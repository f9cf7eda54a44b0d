/**
 * The Electron adapter (electron/main/main.ts) as compiled, in plain Node: a child process runs
 * dist/app/electron/main/main.js with the bare specifier 'electron' resolved to a recording fake
 * (test/fixtures/fake-electron), and this test plays the OS, the user and the renderer through
 * it. The preload runs too, sandbox-style, so renderer requests take the real bridge and IPC
 * channel. This proves the wiring of the thin adapter; only test/electron/app.test.ts, where
 * Electron's binary exists, proves that Electron itself behaves as the fake does.
 *
 * The app is staged in a temp folder the way electron-builder lays it out (package.json,
 * dist/app from tsc, dist/renderer from vite, build/icons, the dependencies), and every file the
 * main process asks Electron to load must be in it and covered by the packaging `files` list.
 * SEMAFORO_TEST_APP_ROOT=<folder> runs the same checks against another layout, e.g. an extracted
 * app.asar (`npx @electron/asar extract`) with its app.asar.unpacked merged in.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/open-store.ts';
import type { EnqueueResult } from '../../shared/domain.ts';
import { describeQueue } from '../../shared/queue-place.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { task as newTask } from '../conformance/shapes.ts';
import { testEngine, waitFor } from '../helpers.ts';
import {
  FakeElectronApp,
  hasItem,
  mkTemp,
  packagedPatterns,
  str,
  trayItems,
  useStagedApp,
} from './fixtures/fake-app.ts';

const root = useStagedApp();

interface WindowOptions {
  icon: string;
  show: boolean;
  webPreferences: { preload: string; contextIsolation: boolean; sandbox: boolean; nodeIntegration: boolean };
}

const failing = (name: string) => ({
  kind: 'shell',
  name,
  group: 'vendor',
  maxAttempts: 1,
  payload: { command: 'semaforo-test-no-such-command' },
});

describe('the Electron main process, compiled, against a recording Electron', () => {
  it('opens a sandboxed window on the real preload and page, turns the tray red, notifies, navigates, hides on close, drains on quit', async () => {
    const app = new FakeElectronApp([]);
    await app.until(() => app.last('app.requestSingleInstanceLock'), 'the single-instance lock');
    // Before ready: the data folder (Electron ignores a later setPath for some paths).
    expect(app.last('app.setPath')?.data).toEqual({ name: 'userData', value: app.home, beforeReady: true });
    expect(app.calls('window.new')).toHaveLength(0);
    await app.send({ cmd: 'ready' });

    // The window: isolated, sandboxed, no Node, the real preload, the real page.
    const created = await app.until(() => app.last('window.new'), 'the window');
    const options = created.data.options as WindowOptions;
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    const preload = options.webPreferences.preload;
    expect(preload).toBe(path.join(root(), 'dist/app/electron/preload/preload.cjs'));
    const preloadSource = fs.readFileSync(preload, 'utf8');
    // A sandboxed preload is a classic script with a `require` that knows only a few modules.
    expect([...preloadSource.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1])).toEqual([
      'electron',
    ]);
    expect(preloadSource).not.toMatch(/^\s*(import|export)\s/m);
    const ran = await app.until(() => app.last('preload.ran'), 'the preload');
    expect(ran.data).toMatchObject({ required: ['electron'], exposed: ['semaforo'] });

    const page = str(app.last('window.loadFile'), 'file');
    expect(page).toBe(path.join(root(), 'dist/renderer/index.html'));
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toMatch(/http-equiv="Content-Security-Policy"[^>]*script-src 'self'/);
    // Under file:// the page's scripts and styles resolve next to it (vite's base './').
    const assets = [...html.matchAll(/(?:src|href)="(\.\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const a of assets) expect(fs.existsSync(path.resolve(path.dirname(page), a)), a).toBe(true);
    await app.until(() => app.last('window.show'), 'the window shown once ready');
    await app.until(() => app.last('tray.new'), 'the tray');
    expect(str(app.last('tray.new'), 'image')).toBe(path.join(root(), 'build/icons/tray-idle-22.png'));

    // Another page, or a frame inside ours, cannot use the channel.
    const foreign = await app.send({
      cmd: 'foreign-request',
      url: 'https://evil.example/',
      name: 'stats',
      input: null,
    });
    expect(foreign).toMatchObject({ ok: false, error: { name: 'Forbidden' } });
    const framed = await app.send({ cmd: 'subframe-request', window: 1, name: 'stats', input: null });
    expect(framed).toMatchObject({
      ok: false,
      error: { name: 'Forbidden', message: expect.stringMatching(/top frame/) },
    });

    // The renderer enqueues a task that fails for good.
    const { task } = await app.request<EnqueueResult>('enqueue', failing('nightly report'));
    const red = await app.until(
      () => app.calls('tray.setImage').find((r) => str(r, 'image').endsWith('tray-attention-22.png')),
      'the red tray light',
    );
    expect(fs.existsSync(str(red, 'image'))).toBe(true);
    const menu = await app.until(
      () => app.calls('tray.setContextMenu').find((r) => hasItem(r, '✗ nightly report')),
      'the failure in the tray menu',
    );
    expect(menu.seq).toBeGreaterThan(app.calls('tray.setContextMenu')[0]!.seq); // rebuilt, not mutated
    await app.until(
      () => app.calls('tray.setToolTip').find((r) => /1 failed/.test(str(r, 'text'))),
      'the tooltip',
    );

    const shown = await app.until(() => app.last('notification.show'), 'a notification');
    const note = app.calls('notification.new').find((r) => r.data.index === shown.data.index)!;
    expect(note.data.options).toMatchObject({ title: 'Task failed: nightly report' });
    expect(fs.existsSync((note.data.options as { icon: string }).icon)).toBe(true);

    // The user clicks it later: after a full GC, the adapter must still hold it.
    await app.send({ cmd: 'gc' });
    const beforeClick = app.seq;
    await app.send({ cmd: 'notification-click', index: shown.data.index as number });
    await app.until(
      () =>
        app
          .calls('renderer.event', beforeClick)
          .find(
            (r) =>
              JSON.stringify(r.data.event) ===
              JSON.stringify({ type: 'navigate', data: { taskId: task.id } }),
          ),
      'the window told to show the failed task',
    );
    expect(app.calls('window.show', beforeClick).length).toBeGreaterThan(0);
    // Looking at the window is seeing the failure: the light calms down.
    await app.until(
      () => str(app.calls('tray.setImage', beforeClick).at(-1), 'image').endsWith('tray-idle-22.png'),
      'the tray back to idle once seen',
    );

    // Closing the window hides it; the app keeps running in the tray.
    const beforeClose = app.seq;
    expect(await app.send({ cmd: 'window-event', window: 1, event: 'close' })).toEqual({ closed: false });
    expect(app.calls('window.hide', beforeClose)).toHaveLength(1);
    expect(app.calls('app.quit', beforeClose)).toHaveLength(0);
    expect(await app.request('stats')).toMatchObject({ counts: { failed: 1 } });

    // Launching it again shows the window, unless the second launch is the autostart (`--hidden`).
    let mark = app.seq;
    await app.send({ cmd: 'second-instance', argv: ['semaforo', '--hidden'] });
    expect(app.calls('window.show', mark)).toHaveLength(0);
    await app.send({ cmd: 'second-instance', argv: ['semaforo'] });
    await app.until(() => app.calls('window.show', mark).length > 0, 'the window shown for a second launch');

    // Tray menu: pause, open a failure, resume.
    mark = app.seq;
    await app.send({ cmd: 'tray-click', label: 'Pause queue' });
    await app.until(
      () =>
        app
          .calls('tray.setContextMenu', mark)
          .find((r) => hasItem(r, 'Resume queue') && hasItem(r, 'Queue paused')),
      'the paused menu',
    );
    expect(str(app.calls('tray.setImage', mark).at(-1), 'image')).toMatch(/tray-paused-22\.png$/);
    mark = app.seq;
    await app.send({ cmd: 'tray-click', label: '✗ nightly report' });
    await app.until(
      () =>
        app.calls('renderer.event', mark).find((r) => (r.data.event as { type: string }).type === 'navigate'),
      'the failure opened from the tray',
    );
    mark = app.seq;
    await app.send({ cmd: 'tray-click', label: 'Resume queue' });
    await app.until(
      () => app.calls('tray.setContextMenu', mark).find((r) => hasItem(r, 'Pause queue')),
      'resumed',
    );

    // Quit while a task runs: the quit is held until the queue drained. The task ends only when
    // this test lets it, so the order is certain whatever the machine's speed.
    const release = path.join(app.home, 'release-the-task');
    const waitsForRelease =
      'const f = process.argv[1]; const t = setInterval(() => require("fs").existsSync(f) && clearInterval(t), 20);';
    const slow = await app.request<EnqueueResult>('enqueue', {
      kind: 'shell',
      name: 'long report',
      payload: { command: process.execPath, args: ['-e', waitsForRelease, release] },
    });
    await app.until(
      () => app.calls('tray.setToolTip').find((r) => /1 running/.test(str(r, 'text'))),
      'the long task running',
    );
    mark = app.seq;
    await app.send({ cmd: 'tray-click', label: 'Quit Semaforo' });
    await app.until(() => app.calls('app.before-quit', mark)[0], 'the quit asked');
    expect(app.calls('app.before-quit', mark)[0]!.data.prevented).toBe(true);
    expect(app.calls('app.exited')).toHaveLength(0);
    fs.writeFileSync(release, '');
    expect(await app.exited).toBe(0);
    const quits = app.calls('app.before-quit', mark).map((r) => r.data.prevented);
    expect(quits.at(-1)).toBe(false);
    expect(app.calls('window.close', mark).map((r) => r.data.prevented)).toEqual([false]);
    const db = await testEngine({ file: path.join(app.home, 'queue.db') });
    expect((await db.getTask(slow.task.id)).status).toBe('done');
    expect((await db.getTask(task.id)).status).toBe('failed');

    // Everything the main process loaded is in the app and would be packaged.
    const patterns = packagedPatterns();
    const loaded = [
      path.join(root(), 'dist/app/electron/main/main.js'),
      preload,
      page,
      options.icon,
      ...app.records.filter((r) => r.call.startsWith('tray.') && r.data.image).map((r) => str(r, 'image')),
      ...app.calls('notification.new').map((r) => (r.data.options as { icon: string }).icon),
    ];
    for (const file of new Set(loaded)) {
      const rel = path.relative(root(), file).split(path.sep).join('/');
      expect(fs.existsSync(file), rel).toBe(true);
      expect(
        patterns.some((p) => (p.endsWith('/**') ? rel.startsWith(p.slice(0, -2)) : rel === p)),
        `${rel} is not in the packaging files list`,
      ).toBe(true);
    }
  });

  it('started hidden: no window until a notification is clicked, which opens it on the task', async () => {
    const app = new FakeElectronApp(['--hidden']);
    await app.until(() => app.last('app.requestSingleInstanceLock'), 'the single-instance lock');
    await app.send({ cmd: 'ready' });
    await app.until(() => app.last('tray.new'), 'the tray');
    expect(app.calls('window.new')).toHaveLength(0);

    // Enqueued by another process on the same file (cron, the CLI).
    const other = await testEngine({ file: path.join(app.home, 'queue.db') });
    const { task } = await other.enqueue(failing('from cron'));
    const shown = await app.until(() => app.last('notification.show'), 'a notification');
    await app.send({ cmd: 'notification-click', index: shown.data.index as number });

    // A new page cannot receive an event yet: the task is in the URL it loads.
    const load = await app.until(() => app.last('window.loadFile'), 'the window loading');
    expect(load.data).toMatchObject({ hash: `/tasks/${task.id}` });
    await app.until(() => app.last('window.show'), 'the window shown');
  });

  it("judges a gate's --when-idle on Electron's idle time: no start until the user is idle", async () => {
    const app = new FakeElectronApp(['--hidden']);
    await app.until(() => app.last('app.requestSingleInstanceLock'), 'the single-instance lock');
    await app.send({ cmd: 'ready' });
    await app.until(() => app.last('tray.new'), 'the tray');
    const other = await testEngine({ file: path.join(app.home, 'queue.db') });
    await other.setGate(null, { whenIdleMs: 300_000 });
    const { task } = await other.enqueue({ kind: 'shell', name: 'indexer', payload: { command: 'true' } });
    await app.until(
      () => app.stderr.includes('the queue gate closed: user idle 0ms < 5m; no new start'),
      'the gate closed on the idle time',
    );
    expect((await other.getTask(task.id)).status).toBe('pending');
    await app.send({ cmd: 'idle', seconds: 301 });
    await waitFor(async () => (await other.getTask(task.id)).status === 'done', 'the task done once idle');
    expect(app.stderr).toContain('the queue gate opened');
    expect(app.stderr).not.toContain('stays open on the idle time');
    await app.send({ cmd: 'tray-click', label: 'Quit Semaforo' });
    expect(await app.exited).toBe(0);
  });

  it('a second launch only hands over to the first: no window, tray or database', async () => {
    const app = new FakeElectronApp([], { FAKE_ELECTRON_LOCK: 'held' });
    expect(await app.exited).toBe(0);
    expect(app.last('app.requestSingleInstanceLock')?.data).toEqual({ got: false });
    expect(app.calls('app.quit')).toHaveLength(1);
    expect(app.calls('window.new').length + app.calls('tray.new').length).toBe(0);
    expect(fs.existsSync(path.join(app.home, 'queue.db'))).toBe(false);
  });

  it('says why when it cannot start (a database from a newer Semaforo) and exits, not lingering unseen', async () => {
    const file = path.join(mkTemp('semaforo-newer-'), 'queue.db');
    const newer = new Database(file);
    newer.pragma('user_version = 9999');
    newer.close();
    const app = new FakeElectronApp([], { SEMAFORO_DB: file });
    await app.until(() => app.last('app.requestSingleInstanceLock'), 'the single-instance lock');
    await app.send({ cmd: 'ready' });
    expect(await app.exited).toBe(1);
    expect(app.last('dialog.showErrorBox')?.data).toMatchObject({
      title: 'Semaforo could not start',
      content: expect.stringMatching(/written by a newer Semaforo/),
    });
    expect(app.calls('window.new').length + app.calls('tray.new').length).toBe(0);
  });
});

describe.skipIf(!pgAvailable)('the tray app on a PostgreSQL queue (SEMAFORO_DB)', () => {
  const schema = freshSchemaName('tray');
  afterAll(() => dropSchema(schema));

  it('opens it from the setting, says where without the password, runs what another host enqueued', async () => {
    const shown = pgLocation(schema);
    const secret = new URL(shown);
    secret.password = 'hunter2';
    const app = new FakeElectronApp([], { SEMAFORO_DB: secret.toString() });
    await app.until(() => app.last('app.requestSingleInstanceLock'), 'the single-instance lock');
    await app.send({ cmd: 'ready' });

    // The menu's line: the server and database, cut in the middle if long, the schema kept.
    const line = describeQueue({ backend: 'postgres', location: shown });
    const menu = await app.until(
      () => app.calls('tray.setContextMenu').find((r) => hasItem(r, 'PostgreSQL ')),
      'the store in the tray menu',
    );
    const label = trayItems(menu).find((m) => m.label?.startsWith('PostgreSQL '))!.label!;
    expect(label.endsWith(`(schema ${schema})`)).toBe(true);
    expect(line.startsWith(label.split('…')[0]!)).toBe(true);
    await app.until(() => app.last('preload.ran'), 'the page');
    expect(await app.request('queueInfo')).toEqual({ backend: 'postgres', location: shown });

    // Another host enqueues; the tray's dispatcher, woken by NOTIFY, runs it.
    const other = await openStore(shown);
    try {
      const [queued] = await other.enqueue([newTask({ name: 'from another host' })], Date.now());
      const id = queued!.task.id;
      await waitFor(async () => (await other.getTask(id))?.status === 'done', 'the task done by the tray');
      expect(await app.request('stats')).toMatchObject({ counts: { done: 1 } });
    } finally {
      await other.close();
    }
    expect(fs.existsSync(path.join(app.home, 'queue.db'))).toBe(false);
    expect(JSON.stringify(app.records) + app.stderr).not.toContain('hunter2');

    await app.send({ cmd: 'tray-click', label: 'Quit Semaforo' });
    expect(await app.exited).toBe(0);
  });
});
