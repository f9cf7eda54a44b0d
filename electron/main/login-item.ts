/**
 * "Launch at login": Electron's login items on macOS and Windows; on Linux, an XDG autostart
 * entry (Electron has no login items there).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { App } from 'electron';

function autostartFile(): string {
  const config = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(config, 'autostart', 'semaforo.desktop');
}

export function getLaunchAtLogin(app: App): boolean | null {
  if (process.platform === 'linux') return fs.existsSync(autostartFile());
  if (process.platform === 'darwin' || process.platform === 'win32')
    return app.getLoginItemSettings().openAtLogin;
  return null;
}

export function setLaunchAtLogin(app: App, on: boolean): void {
  if (process.platform !== 'linux') return app.setLoginItemSettings({ openAtLogin: on });
  const file = autostartFile();
  if (!on) return fs.rmSync(file, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const exec = process.env.APPIMAGE ?? process.execPath;
  fs.writeFileSync(
    file,
    `[Desktop Entry]\nType=Application\nName=Semaforo\nExec="${exec}" --hidden\nX-GNOME-Autostart-enabled=true\n`,
  );
}
