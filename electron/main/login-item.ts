/**
 * "Launch at login": Electron's login items on macOS and Windows; on Linux, an XDG autostart
 * entry (Electron has no login items there). Started at login, the app stays in the tray
 * (`--hidden`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { App } from 'electron';

function autostartFile(): string {
  const config = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(config, 'autostart', 'semaforo.desktop');
}

/** The command that starts this app: packaged, the app itself (or its AppImage). */
function launchCommand(app: App): { exec: string; args: string[] } {
  const exec = process.env.APPIMAGE ?? process.execPath;
  // Run from the repository (`npm start`), the executable is Electron itself, which without the
  // app folder as its first argument would open Electron's default app instead.
  return { exec, args: process.defaultApp ? [app.getAppPath(), '--hidden'] : ['--hidden'] };
}

export function getLaunchAtLogin(app: App): boolean | null {
  if (process.platform === 'linux') return fs.existsSync(autostartFile());
  if (process.platform === 'darwin' || process.platform === 'win32') {
    const { exec, args } = launchCommand(app);
    // Windows matches the entry by path and arguments (macOS ignores both).
    return app.getLoginItemSettings({ path: exec, args }).openAtLogin;
  }
  return null;
}

export function setLaunchAtLogin(app: App, on: boolean): void {
  const { exec, args } = launchCommand(app);
  if (process.platform !== 'linux') return app.setLoginItemSettings({ openAtLogin: on, path: exec, args });
  const file = autostartFile();
  if (!on) return fs.rmSync(file, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Desktop Entry Exec quoting: each argument in double quotes, with \ " ` $ escaped and % doubled
  // (a lone % starts a field code).
  const quote = (s: string) => `"${s.replace(/[\\"`$]/g, '\\$&').replace(/%/g, '%%')}"`;
  fs.writeFileSync(
    file,
    `[Desktop Entry]\nType=Application\nName=Semaforo\nExec=${[exec, ...args].map(quote).join(' ')}\nX-GNOME-Autostart-enabled=true\n`,
  );
}
