/**
 * The tray app's main process: it owns the queue (the same file the CLI uses), runs the
 * dispatcher, and renders what the desktop controller decides. Everything with logic lives in
 * plain modules (desktop-controller.ts, policy/, ipc-binding.ts); this file only adapts Electron.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  app,
  ipcMain,
  nativeImage,
  type MenuItemConstructorOptions,
} from 'electron';
import { IPC_EVENT, IPC_REQUEST } from '../../shared/ipc.ts';
import { createEngine } from '../core/engine.ts';
import { loadUserHandlers } from '../core/handlers/user-modules.ts';
import { stderrLogger } from '../core/logger.ts';
import { dataDir, defaultDbPath, defaultHandlersDir } from '../core/paths.ts';
import { createQueueService } from '../core/service.ts';
import { createDesktopController, type DesktopHost } from './desktop-controller.ts';
import { createIpcHandler, isInside } from './ipc-binding.ts';
import { getLaunchAtLogin, setLaunchAtLogin } from './login-item.ts';
import type { TrayMenuItem, TrayView } from './policy/tray-model.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled layout: dist/app/electron/main/main.js; the renderer build is dist/renderer, icons in build/.
const root = path.resolve(here, '../../../..');
const rendererDir = path.join(root, 'dist', 'renderer');
const iconsDir = path.join(root, 'build', 'icons');
const preload = path.join(here, '..', 'preload', 'preload.cjs');
const logger = stderrLogger(process.env.SEMAFORO_VERBOSE === '1');

// Same data folder as the CLI, so `semaforo list` and the window show the same queue.
app.setPath('userData', dataDir());
if (!app.requestSingleInstanceLock()) app.quit();
else void start();

function trayIcon(view: TrayView): Electron.NativeImage {
  if (process.platform === 'darwin') {
    const img = nativeImage.createFromPath(path.join(iconsDir, `${view.icon}-macTemplate.png`));
    img.setTemplateImage(true);
    return img;
  }
  const size = process.platform === 'win32' ? 16 : 22;
  return nativeImage.createFromPath(path.join(iconsDir, `${view.icon}-${size}.png`));
}

async function start(): Promise<void> {
  await app.whenReady();
  const { handlers, errors } = await loadUserHandlers(defaultHandlersDir());
  for (const e of errors) logger.warn(`kind module ${e.file} not loaded: ${e.message}`);
  const engine = createEngine({ file: defaultDbPath(), userHandlers: handlers, workerLabel: 'tray', logger });
  const service = createQueueService(engine);
  let window: BrowserWindow | null = null;
  let quitting = false;

  const send = (event: unknown) => window?.webContents.send(IPC_EVENT, event);
  const openWindow = (target?: { taskId?: number; failuresOfGroup?: string }) => {
    if (!window) {
      window = new BrowserWindow({
        width: 1100,
        height: 720,
        minWidth: 800,
        minHeight: 600,
        show: false,
        title: 'Semaforo',
        icon: path.join(iconsDir, 'app-256.png'),
        webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false },
      });
      window.on('close', (e) => {
        if (quitting) return;
        e.preventDefault(); // closing hides to the tray; Quit is in the tray menu
        window?.hide();
      });
      window.on('focus', () => controller.markFailuresSeen());
      window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
      window.webContents.on('will-navigate', (e, url) => {
        if (!isInside(url, pathToFileURL(rendererDir).href)) e.preventDefault();
      });
      void window.loadFile(path.join(rendererDir, 'index.html'));
      window.once('ready-to-show', () => window?.show());
    } else window.show();
    window.focus();
    if (target) send({ type: 'navigate', data: target });
  };

  const handle = createIpcHandler({
    service,
    logger,
    trusted: () => ({
      webContentsId: window?.webContents.id ?? null,
      urlPrefix: pathToFileURL(rendererDir).href,
    }),
  });
  ipcMain.handle(IPC_REQUEST, (event, name: unknown, input: unknown) =>
    handle(
      {
        webContentsId: event.sender.id,
        frameUrl: event.senderFrame?.url,
        isMainFrame: event.senderFrame !== null && event.senderFrame === event.sender.mainFrame,
      },
      name,
      input,
    ),
  );
  engine.onChange((batch) => send({ type: 'changed', data: batch }));

  let tray: Tray | null = null;
  const toMenu = (items: TrayMenuItem[]): MenuItemConstructorOptions[] =>
    items.map((m) => {
      if (m.kind === 'separator') return { type: 'separator' };
      if (m.kind === 'label') return { label: m.label, enabled: false };
      if (m.kind === 'checkbox')
        return {
          label: m.label,
          type: 'checkbox',
          checked: m.checked,
          click: () => controller.handle(m.action),
        };
      return { label: m.label, enabled: m.enabled, click: () => controller.handle(m.action) };
    });
  const host: DesktopHost = {
    showTray: (view) => {
      tray ??= new Tray(trayIcon(view));
      tray.setImage(trayIcon(view));
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
      note.on('click', () =>
        openWindow(n.taskId !== null ? { taskId: n.taskId } : { failuresOfGroup: n.group }),
      );
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
  const controller = createDesktopController({ engine, host, logger });
  engine.start();
  controller.refresh();
  if (!process.argv.includes('--hidden')) openWindow();

  app.on('second-instance', () => openWindow());
  app.on('window-all-closed', () => {
    /* stay in the tray */
  });
  let drained = false;
  app.on('before-quit', (e) => {
    quitting = true;
    if (drained) return;
    e.preventDefault();
    // Running tasks get a deadline; what is still running then is released to other workers.
    controller.dispose();
    void engine.close(10_000).finally(() => {
      drained = true;
      app.quit();
    });
  });
}
