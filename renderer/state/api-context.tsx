import { createContext, useContext, type ReactNode } from 'react';
import type { QueueApi } from '../../shared/api.ts';

const ApiContext = createContext<QueueApi | null>(null);

export function ApiProvider({ api, children }: { api: QueueApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): QueueApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside <ApiProvider>');
  return api;
}
