/**
 * Where Semaforo keeps its data when no path is given. It matches Electron's
 * `app.getPath('userData')` for an app named "Semaforo", so the tray app, the CLI and `serve`
 * open the same file by default without the CLI importing electron.
 */
import os from 'node:os';
import path from 'node:path';

export const APP_NAME = 'Semaforo';
export const DB_FILE_NAME = 'queue.db';

/** The per-user application data folder (the parent of Electron's userData). */
export function appDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || path.join(home, '.config');
}

/** Semaforo's data folder: `SEMAFORO_HOME` if set, else `<appData>/Semaforo`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  return env.SEMAFORO_HOME || path.join(appDataDir(env, platform), APP_NAME);
}

/** The queue database: `SEMAFORO_DB` if set, else `<dataDir>/queue.db`. */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  return env.SEMAFORO_DB || path.join(dataDir(env, platform), DB_FILE_NAME);
}

/** The folder of user handler modules, by default `<dataDir>/handlers`. */
export function defaultHandlersDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  return env.SEMAFORO_HANDLERS || path.join(dataDir(env, platform), 'handlers');
}
