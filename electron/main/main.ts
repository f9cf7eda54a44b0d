/**
 * The tray app's main process: it owns the queue (the same file the CLI uses), runs the
 * dispatcher, and renders what the desktop controller decides. Everything with logic lives in
 * plain modules (desktop-controller.ts, policy/, ipc-binding.ts); this file only adapts Electron.
 * test/desktop/main-adapter.test.ts runs the compiled file against a recording fake of 'electron'.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  app,
  dialog,
  ipcMain,
  nativeImage,
  powerMonitor,
  type MenuItemConstructorOptions,
} from 'electron';
import type { ApiEvent } from '../../shared/api.ts';
import { IPC_EVENT, IPC_REQUEST } from '../../shared/ipc.ts';
import { createEngine } from '../core/engine.ts';
import { idleReading } from '../core/machine/idle-reading.ts';
import { loadUserHandlers } from '../core/handlers/user-modules.ts';
import { readMachine, withIdleTime } from '../core/machine/readings.ts';
import { stderrLogger } from '../core/logger.ts';
import { dataDir, defaultDbPath, defaultHandlersDir } from '../core/paths.ts';
import { createQueueService } from '../core/service.ts';
import { createDesktopController, type DesktopHost } from './desktop-controller.ts';
import { createIpcHandler, isInside } from './ipc-binding.ts';
import { getLaunchAtLogin, setLaunchAtLogin } from './login-item.ts';
import type { TrayAction, TrayMenuItem, TrayView } from './policy/tray-model.ts';

/** Must equal `appId` in build/electron-builder.yml: Windows files notifications under it. */
const APP_ID = 'dev.semaforo.app';
/** Shown notifications kept alive for their click (see notify below); older ones are let go. */
const MAX_LIVE_NOTIFICATIONS = 100;

type WindowTarget = { taskId?: number; failuresOfGroup?: string };

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled layout: dist/app/electron/main/main.js, four folders below the app root (the
// repository in development, app.asar when packaged): the renderer build is dist/renderer, icons
// are in build/icons. build/electron-builder.yml's `files` must keep all three.
const root = path.resolve(here, '../../../..');
const rendererDir = path.join(root, 'dist', 'renderer');
const indexHtml = path.join(rendererDir, 'index.html');
// With the trailing slash, so that a sibling folder such as dist/renderer-old does not pass.
const rendererUrlPrefix = pathToFileURL(rendererDir + path.sep).href;
const iconsDir = path.join(root, 'build', 'icons');
const preload = path.join(here, '..', 'preload', 'preload.cjs');
const logger = stderrLogger(process.env.SEMAFORO_VERBOSE === '1');

// Same data folder as the CLI, so `semaforo list` and the window show the same queue. Before
// `ready`, as Electron requires; static imports finish before `ready`, so this runs in time.
app.setPath('userData', dataDir());
// Windows shows a notification only for the AppUserModelID of an installed Start-menu shortcut:
// the installer registers appId; an unpackaged Electron is known by its executable.
if (process.platform === 'win32') app.setAppUserModelId(app.isPackaged ? APP_ID : process.execPath);

if (!app.requestSingleInstanceLock()) app.quit();
else {
  const started = start();
  started.catch((err: unknown) => {
    // Without a window or tray the process would linger invisibly: say why and leave.
    const message = err instanceof Error ? err.message : String(err);
    logger.error(`Semaforo could not start: ${message}`);
    dialog.showErrorBox('Semaforo could not start', message);
    app.exit(1);
  });
  // Registered now, not after start-up's awaits: Electron emits it once after `ready`, and a
  // second launch during start-up would otherwise do nothing visible.
  app.on('second-instance', (_e, argv) => {
    // An autostart entry (`--hidden`) firing while the app already runs must not pop the window.
    if (argv.includes('--hidden')) return;
    started.then(
      (ui) => ui.openWindow(),
      () => {},
    );
  });
}

function trayIcon(view: TrayView): Electron.NativeImage {
  if (process.platform === 'darwin') {
    const img = nativeImage.createFromPath(path.join(iconsDir, `${view.icon}-macTemplate.png`));
    img.setTemplateImage(true);
    return img;
  }
  const size = process.platform === 'win32' ? 16 : 22;
  return nativeImage.createFromPath(path.join(iconsDir, `${view.icon}-${size}.png`));
}

/** The renderer's route (renderer/state/route.ts) for a target, as a URL fragment. */
function targetHash(target: WindowTarget): string {
  return target.taskId !== undefined ? `/tasks/${target.taskId}` : '/failures';
}

async function start(): Promise<{ openWindow: (target?: WindowTarget) => void }> {
  await app.whenReady();
  const { handlers, errors } = await loadUserHandlers(defaultHandlersDir());
  for (const e of errors) logger.warn(`kind module ${e.file} not loaded: ${e.message}`);
  // Only here can a gate's --when-idle be judged: the idle time is Electron's to read.
  const machine = withIdleTime(
    () => readMachine(),
    idleReading(() => powerMonitor.getSystemIdleTime() * 1000),
  );
  const engine = await createEngine({
    file: defaultDbPath(),
    userHandlers: handlers,
    workerLabel: 'tray',
    logger,
    readMachine: machine,
  });
  const service = createQueueService(engine);
  let window: BrowserWindow | null = null;
  // The page has loaded, so its bridge listens for events (a `navigate` sent earlier is lost).
  let pageLoaded = false;
  let quitting = false;

  const send = (event: ApiEvent) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT, event);
  };
  const load = (target?: WindowTarget) => {
    pageLoaded = false;
    window?.loadFile(indexHtml, target ? { hash: targetHash(target) } : {}).catch((err: unknown) => {
      // Unhandled, a rejection would end in Electron's main-process error dialog. A load that a
      // newer one replaced (a target arriving while loading) rejects with ERR_ABORTED: expected.
      if (!String(err).includes('ERR_ABORTED'))
        logger.error(`the window could not load its page: ${String(err)}`);
    });
  };
  const createWindow = (target?: WindowTarget): BrowserWindow => {
    const win = new BrowserWindow({
      width: 1100,
      height: 720,
      minWidth: 800,
      minHeight: 600,
      show: false,
      title: 'Semaforo',
      icon: path.join(iconsDir, 'app-256.png'),
      webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false },
    });
    win.on('close', (e) => {
      if (quitting) return;
      e.preventDefault(); // closing hides to the tray; Quit is in the tray menu
      win.hide();
    });
    win.on('closed', () => {
      if (window === win) window = null;
    });
    win.on('focus', () => void controller.markFailuresSeen());
    win.once('ready-to-show', () => {
      win.show();
      win.focus();
    });
    win.webContents.on('did-finish-load', () => (pageLoaded = true));
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.webContents.on('will-navigate', (e, url) => {
      if (!isInside(url, rendererUrlPrefix)) e.preventDefault();
    });
    window = win;
    // A target goes in the URL: the page reads its route from the fragment when it starts.
    load(target);
    return win;
  };
  const openWindow = (target?: WindowTarget) => {
    if (!window) {
      createWindow(target); // shown on ready-to-show, without a white flash
      return;
    }
    if (target) {
      if (pageLoaded) send({ type: 'navigate', data: target });
      else load(target); // still loading: nothing listens yet, so load the target instead
    }
    window.show();
    window.focus();
  };

  const handle = createIpcHandler({
    service,
    logger,
    trusted: () => ({
      webContentsId: window && !window.isDestroyed() ? window.webContents.id : null,
      urlPrefix: rendererUrlPrefix,
    }),
  });
  ipcMain.handle(IPC_REQUEST, (event, name: unknown, input: unknown) =>
    handle(
      {
        webContentsId: event.sender.id,
        frameUrl: event.senderFrame?.url,
        // By the documented `parent` (null for the top frame), not by comparing WebFrameMain
        // objects: Electron does not promise one wrapper object per frame.
        isMainFrame: event.senderFrame !== null && event.senderFrame.parent === null,
      },
      name,
      input,
    ),
  );
  engine.onChange((batch) => send({ type: 'changed', data: batch }));

  let tray: Tray | null = null;
  const act = (action: TrayAction) =>
    void controller
      .handle(action)
      .catch((err: unknown) => logger.error(`tray action failed: ${String(err)}`));
  const toMenu = (items: TrayMenuItem[]): MenuItemConstructorOptions[] =>
    items.map((m) => {
      if (m.kind === 'separator') return { type: 'separator' };
      if (m.kind === 'label') return { label: m.label, enabled: false };
      if (m.kind === 'checkbox')
        return {
          label: m.label,
          type: 'checkbox',
          checked: m.checked,
          click: () => act(m.action),
        };
      return { label: m.label, enabled: m.enabled, click: () => act(m.action) };
    });
  // Electron holds a shown Notification only weakly: once our last reference is gone it can be
  // garbage-collected before the user clicks it, and the click is lost (electron/electron#16922).
  const liveNotifications = new Set<Notification>();
  const host: DesktopHost = {
    showTray: (view) => {
      if (!tray) {
        tray = new Tray(trayIcon(view));
        // Windows and some Linux panels report a left click as 'click' (the menu is on the right
        // button); on macOS a click opens the menu.
        if (process.platform !== 'darwin') tray.on('click', () => openWindow());
      } else tray.setImage(trayIcon(view));
      tray.setToolTip(view.tooltip);
      if (process.platform === 'darwin') tray.setTitle(view.title);
      // Linux only picks up a changed menu through setContextMenu.
      tray.setContextMenu(Menu.buildFromTemplate(toMenu(view.menu)));
    },
    notify: (n) => {
      if (!Notification.isSupported()) return;
      const note = new Notification({
        title: n.title,
        body: n.body,
        icon: path.join(iconsDir, 'app-256.png'),
      });
      const forget = () => liveNotifications.delete(note);
      note.on('click', () => {
        forget();
        openWindow(n.taskId !== null ? { taskId: n.taskId } : { failuresOfGroup: n.group });
      });
      note.on('close', forget);
      liveNotifications.add(note);
      // Some notification servers never report a close: keep the set bounded.
      if (liveNotifications.size > MAX_LIVE_NOTIFICATIONS)
        liveNotifications.delete(liveNotifications.values().next().value!);
      note.show();
    },
    openWindow,
    quit: () => {
      quitting = true;
      app.quit();
    },
    getLaunchAtLogin: () => getLaunchAtLogin(app),
    setLaunchAtLogin: (on) => setLaunchAtLogin(app, on),
  };
  const controller = createDesktopController({ engine, host, logger, readMachine: machine });
  await engine.registry.loadPayloadSchemas();
  engine.start();
  void controller.refresh();
  if (!process.argv.includes('--hidden')) openWindow();

  // macOS: a click on the Dock icon brings back the window that closing hid.
  app.on('activate', () => openWindow());
  app.on('window-all-closed', () => {
    /* stay in the tray */
  });
  let drained = false;
  let draining: Promise<void> | null = null;
  app.on('before-quit', (e) => {
    quitting = true;
    if (drained) return;
    e.preventDefault();
    // Once: a second Quit (or Ctrl-C forwarded twice) while draining must not close twice.
    draining ??= (async () => {
      controller.dispose();
      try {
        // Running tasks get a deadline; what is still running then is released to other workers.
        await engine.close(10_000);
      } catch (err) {
        logger.error(`closing the queue failed: ${String(err)}`);
      }
      drained = true;
      app.quit();
    })();
  });
  return { openWindow };
}
