// The only bridge between the sandboxed renderer and the main process: two functions over the
// shared contract, nothing else of Node or Electron. CommonJS because sandboxed preloads are.
import type { IpcRendererEvent, ContextBridge, IpcRenderer } from 'electron';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { contextBridge, ipcRenderer } = require('electron') as {
  contextBridge: ContextBridge;
  ipcRenderer: IpcRenderer;
};

// Duplicated from shared/ipc.ts on purpose: a sandboxed preload can require only 'electron'.
const IPC_REQUEST = 'semaforo:request';
const IPC_EVENT = 'semaforo:event';

type IpcResult = { ok: true; value: unknown } | { ok: false; error: { name: string; message: string } };

contextBridge.exposeInMainWorld('semaforo', {
  request: async (name: string, input: unknown): Promise<unknown> => {
    const r = (await ipcRenderer.invoke(IPC_REQUEST, name, input)) as IpcResult;
    if (r.ok) return r.value;
    // A plain object crosses contextBridge intact; an Error would lose its fields.
    return Promise.reject({ info: r.error });
  },
  onEvent: (listener: (event: unknown) => void): (() => void) => {
    const handler = (_e: IpcRendererEvent, event: unknown) => listener(event);
    ipcRenderer.on(IPC_EVENT, handler);
    return () => ipcRenderer.off(IPC_EVENT, handler);
  },
});
