/**
 * Which screen is shown, and which task is open in the side panel, kept in the URL fragment
 * (`#/tasks/42`, `#/edit-schedule/nightly`) so Back works and a reload keeps the place. A fragment
 * works both over HTTP and from file:// inside Electron.
 */
import { useCallback, useEffect, useState } from 'react';

export const SCREENS = [
  'overview',
  'tasks',
  'failures',
  'schedules',
  'groups',
  'workers',
  'settings',
  'new',
  'new-schedule',
  'edit-schedule',
] as const;
export type ScreenId = (typeof SCREENS)[number];

export const SCREEN_TITLES: Record<ScreenId, string> = {
  overview: 'Overview',
  tasks: 'Tasks',
  failures: 'Failures',
  schedules: 'Schedules',
  groups: 'Groups',
  workers: 'Workers',
  settings: 'Settings',
  new: 'New task',
  'new-schedule': 'New schedule',
  'edit-schedule': 'Edit schedule',
};

/** The rail entry a screen belongs to (a schedule's form is part of Schedules). */
export function railEntryOf(screen: ScreenId): ScreenId {
  return screen === 'new-schedule' || screen === 'edit-schedule' ? 'schedules' : screen;
}

export interface Route {
  screen: ScreenId;
  /** the task open in the detail panel */
  taskId: number | null;
  /** the schedule being edited (edit-schedule only) */
  schedule?: string;
  /**
   * tasks only: show the tasks of this schedule (its filter set, then the address is `#/tasks`
   * again): a link a new tab or window opens keeps what a click in this one does
   */
  scheduleTasks?: { id: number; name: string };
}

const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

export function parseRoute(hash: string): Route {
  const of = /^#\/tasks\/of-schedule\/(\d{1,15})\/(.+)$/.exec(hash);
  if (of) {
    const name = decodeURIComponent(of[2]!);
    if (SCHEDULE_NAME.test(name))
      return { screen: 'tasks', taskId: null, scheduleTasks: { id: Number(of[1]), name } };
  }
  const edit = /^#\/edit-schedule\/(.+)$/.exec(hash);
  if (edit) {
    const name = decodeURIComponent(edit[1]!);
    if (SCHEDULE_NAME.test(name)) return { screen: 'edit-schedule', taskId: null, schedule: name };
  }
  const m = /^#\/([a-z-]+)(?:\/(\d+))?$/.exec(hash);
  const known = (SCREENS as readonly string[]).includes(m?.[1] ?? '') && m![1] !== 'edit-schedule';
  const screen = known ? (m![1] as ScreenId) : 'overview';
  return { screen, taskId: m?.[2] ? Number(m[2]) : null };
}

export function routeHash(route: Route): string {
  const of = route.screen === 'tasks' ? route.scheduleTasks : undefined;
  if (of) return `#/tasks/of-schedule/${of.id}/${encodeURIComponent(of.name)}`;
  if (route.screen === 'edit-schedule') return `#/edit-schedule/${encodeURIComponent(route.schedule ?? '')}`;
  return `#/${route.screen}${route.taskId !== null ? `/${route.taskId}` : ''}`;
}

/** `replace`: this place takes the current one's in the history (Back skips it). */
export function useRoute(): [Route, (next: Route, options?: { replace?: boolean }) => void] {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const navigate = useCallback((next: Route, options: { replace?: boolean } = {}) => {
    const hash = routeHash(next);
    if (options.replace) window.history.replaceState(window.history.state, '', hash);
    else if (window.location.hash !== hash) window.location.hash = hash;
    setRoute(next);
  }, []);
  return [route, navigate];
}

/** The address of a task's detail, for links (a new tab opens it on the Tasks screen). */
export function taskHref(taskId: number): string {
  return routeHash({ screen: 'tasks', taskId });
}

/**
 * Whether a click on a link is an ordinary one the page should handle itself; Ctrl, Cmd, Shift or
 * a middle click means the browser's own "open in a new tab or window".
 */
export function isPlainClick(e: {
  button: number;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}): boolean {
  return e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.altKey;
}
