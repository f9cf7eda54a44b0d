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
  /** the webContents of our window, and the URL prefix its page is loaded from */
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
  if (!sender.frameUrl || !sender.frameUrl.startsWith(trusted.urlPrefix)) return 'not from the Semaforo page';
  return null;
}

export function createIpcHandler(o: IpcBindingOptions) {
  return (sender: IpcSender, name: unknown, input: unknown): IpcResult => {
    const refusal = senderRefusal(sender, o.trusted());
    if (refusal) {
      o.logger.warn(`refused an IPC request ${String(name).slice(0, 40)}: ${refusal}`);
      return { ok: false, error: { name: 'Forbidden', message: `refused: ${refusal}` } };
    }
    if (typeof name !== 'string')
      return { ok: false, error: { name: 'ValidationError', message: 'request name must be a string' } };
    try {
      // `null` is how a transport says "no input".
      return { ok: true, value: handleRequest(o.service, name, input === null ? undefined : input) ?? null };
    } catch (err) {
      const info = toErrorInfo(err);
      if (!['ValidationError', 'NotFoundError', 'ConflictError'].includes(info.name))
        o.logger.error(`IPC request ${name} failed: ${info.message}`);
      return { ok: false, error: info };
    }
  };
}
