/**
 * The main-process side of the IPC transport, without Electron: given who sent a message and
 * what it says, answer it through the contract's real service. ipc.ts wires it to ipcMain;
 * tests call it directly.
 */
import { toErrorInfo } from '../../shared/errors.ts';
import type { IpcResult } from '../../shared/ipc.ts';
import { handleRequest, type QueueService } from '../core/service.ts';
import type { Logger } from '../core/logger.ts';

export interface IpcSender {
  /** the id of the webContents that sent it */
  webContentsId: number;
  /** the URL of the frame that sent it (undefined once the frame is gone) */
  frameUrl: string | undefined;
  /** it came from the top frame, not an iframe */
  isMainFrame: boolean;
}

export interface IpcBindingOptions {
  service: QueueService;
  /** the webContents of our window, and the URL of the folder its page is loaded from */
  trusted: () => { webContentsId: number | null; urlPrefix: string };
  logger: Logger;
}

export function senderRefusal(
  sender: IpcSender,
  trusted: ReturnType<IpcBindingOptions['trusted']>,
): string | null {
  if (trusted.webContentsId === null || sender.webContentsId !== trusted.webContentsId)
    return 'not from the Semaforo window';
  if (!sender.isMainFrame) return 'not from the top frame';
  if (!sender.frameUrl || !isInside(sender.frameUrl, trusted.urlPrefix)) return 'not from the Semaforo page';
  return null;
}

/**
 * Whether `url` names a location inside the folder `folderUrl` (`pathToFileURL(dir).href`, which
 * has no trailing slash). Two traps a plain `startsWith` falls into:
 * - a sibling folder: `…/dist/renderer-evil/x.html` starts with `…/dist/renderer`;
 * - a spelling that climbs out: `…/dist/renderer/../../evil.html` (or `%2e%2e`), resolved here
 *   the way the browser would before comparing.
 */
export function isInside(url: string, folderUrl: string): boolean {
  let href: string;
  try {
    href = new URL(url).href;
  } catch {
    return false;
  }
  return href.startsWith(folderUrl.endsWith('/') ? folderUrl : `${folderUrl}/`);
}

/** A short printable label of whatever arrived as the request name, for the log. */
function describe(name: unknown): string {
  // String() throws on objects without a prototype (and on symbols in templates); a refusal must
  // not turn into an exception just because the name was hostile.
  const text = typeof name === 'string' ? name : typeof name;
  return text.slice(0, 40);
}

export function createIpcHandler(o: IpcBindingOptions) {
  return async (sender: IpcSender, name: unknown, input: unknown): Promise<IpcResult> => {
    const refusal = senderRefusal(sender, o.trusted());
    if (refusal) {
      o.logger.warn(`refused an IPC request ${describe(name)}: ${refusal}`);
      return { ok: false, error: { name: 'Forbidden', message: `refused: ${refusal}` } };
    }
    if (typeof name !== 'string')
      return { ok: false, error: { name: 'ValidationError', message: 'request name must be a string' } };
    try {
      // `null` is how a transport says "no input".
      return {
        ok: true,
        value: (await handleRequest(o.service, name, input === null ? undefined : input)) ?? null,
      };
    } catch (err) {
      const info = toErrorInfo(err);
      if (!['ValidationError', 'NotFoundError', 'ConflictError'].includes(info.name))
        o.logger.error(`IPC request ${name} failed: ${info.message}`);
      return { ok: false, error: info };
    }
  };
}
