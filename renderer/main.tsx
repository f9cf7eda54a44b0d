/**
 * Start-up: pick the transport (the Electron bridge when the preload put one on window, otherwise
 * HTTP against the server that served this page) and hand the App a QueueApi.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { QueueApi } from '../shared/api.ts';
import { createHttpApi } from './api/http-transport.ts';
import { createIpcApi } from './api/ipc-transport.ts';
import { openSession, takeToken } from './api/token.ts';
import { App } from './App.tsx';
import { MissingToken } from './screens/MissingToken.tsx';
import { createConnectionSignal, type ConnectionSignal } from './state/connection.ts';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';

async function pickTransport(): Promise<{ api: QueueApi; connection?: ConnectionSignal } | null> {
  if (window.semaforo) return { api: createIpcApi(window.semaforo) };
  const token = takeToken(window.location, window.history);
  const session = await openSession(window.location.origin, token);
  // Unreachable: start anyway (the screens say the server is down and recover when it is back).
  if (session === 'refused') return null;
  const connection = createConnectionSignal(true);
  // This tab keeps the token in memory as well, in case the cookie could not be set.
  const api = createHttpApi({ baseUrl: window.location.origin, token, onConnection: connection.set });
  return { api, connection };
}

// A chunk's stylesheet that cannot be fetched (the server went away mid-load) is not worth an
// uncaught error: the part itself says so through its ChunkBoundary.
window.addEventListener('vite:preloadError', (event) => event.preventDefault());

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('renderer/index.html has no #root element');
const root = createRoot(rootElement);
void pickTransport().then((transport) =>
  root.render(
    <StrictMode>
      {transport ? <App api={transport.api} connection={transport.connection} /> : <MissingToken />}
    </StrictMode>,
  ),
);
