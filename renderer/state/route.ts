/**
 * Which screen is shown, and which task is open in the side panel, kept in the URL fragment
 * (`#/tasks/42`) so Back works and a reload keeps the place. A fragment works both over HTTP and
 * from file:// inside Electron.
 */
import { useCallback, useEffect, useState } from 'react';

export const SCREENS = ['overview', 'tasks', 'failures', 'groups', 'settings', 'new'] as const;
export type ScreenId = (typeof SCREENS)[number];

export const SCREEN_TITLES: Record<ScreenId, string> = {
  overview: 'Overview',
  tasks: 'Tasks',
  failures: 'Failures',
  groups: 'Groups',
  settings: 'Settings',
  new: 'New task',
};

export interface Route {
  screen: ScreenId;
  /** the task open in the detail panel */
  taskId: number | null;
}

export function parseRoute(hash: string): Route {
  const m = /^#\/([a-z]+)(?:\/(\d+))?$/.exec(hash);
  const screen = (SCREENS as readonly string[]).includes(m?.[1] ?? '') ? (m![1] as ScreenId) : 'overview';
  return { screen, taskId: m?.[2] ? Number(m[2]) : null };
}

export function routeHash(route: Route): string {
  return `#/${route.screen}${route.taskId !== null ? `/${route.taskId}` : ''}`;
}

export function useRoute(): [Route, (next: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const navigate = useCallback((next: Route) => {
    const hash = routeHash(next);
    if (window.location.hash !== hash) window.location.hash = hash;
    setRoute(next);
  }, []);
  return [route, navigate];
}
