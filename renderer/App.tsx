/**
 * The dashboard: a left rail, the current screen, and the task detail panel beside it. It is
 * handed a QueueApi and cannot tell whether that talks Electron IPC or HTTP.
 */
import { lazy, useCallback, useEffect, useState } from 'react';
import { ChunkBoundary } from './components/ChunkBoundary.tsx';
import type { QueueApi } from '../shared/api.ts';
import type { Task, TaskStatus } from '../shared/domain.ts';
import { ConnectionBanner } from './components/ConnectionBanner.tsx';
import { NoticeArea } from './components/NoticeArea.tsx';
import { Rail } from './components/Rail.tsx';
import { FailuresScreen } from './screens/FailuresScreen.tsx';
import { OverviewScreen } from './screens/OverviewScreen.tsx';
import { TaskDetailPanel } from './screens/TaskDetailPanel.tsx';
import { TasksScreen } from './screens/TasksScreen.tsx';
import { ApiProvider, useApi } from './state/api-context.tsx';
import { ChangesProvider } from './state/changes.tsx';
import { ConfirmProvider } from './state/confirm.tsx';
import { ConnectionContext, createConnectionSignal, type ConnectionSignal } from './state/connection.ts';
import { NoticeProvider } from './state/notices.tsx';
import { SCREEN_TITLES, useRoute } from './state/route.ts';
import { StatsProvider, useStats } from './state/stats.tsx';
import { queueState } from './state/status.ts';
import { NO_FILTERS, type TaskFilters } from './state/task-filters.ts';

const ALWAYS_CONNECTED = createConnectionSignal(true);

// Forms, schedules and settings load when first opened: with them come the validator (zod) and
// croner, which the screens a dashboard opens on (Overview, Tasks, Failures) do without.
const GroupsScreen = lazy(() =>
  import('./screens/GroupsScreen.tsx').then((m) => ({ default: m.GroupsScreen })),
);
const WorkersScreen = lazy(() =>
  import('./screens/WorkersScreen.tsx').then((m) => ({ default: m.WorkersScreen })),
);
const NewTaskScreen = lazy(() =>
  import('./screens/NewTaskScreen.tsx').then((m) => ({ default: m.NewTaskScreen })),
);
const ScheduleFormScreen = lazy(() =>
  import('./screens/ScheduleFormScreen.tsx').then((m) => ({ default: m.ScheduleFormScreen })),
);
const SchedulesScreen = lazy(() =>
  import('./screens/SchedulesScreen.tsx').then((m) => ({ default: m.SchedulesScreen })),
);
const SettingsScreen = lazy(() =>
  import('./screens/SettingsScreen.tsx').then((m) => ({ default: m.SettingsScreen })),
);

export function App({ api, connection }: { api: QueueApi; connection?: ConnectionSignal }) {
  return (
    <ApiProvider api={api}>
      <ChangesProvider api={api}>
        <NoticeProvider>
          <ConfirmProvider>
            <StatsProvider>
              <ConnectionContext.Provider value={connection ?? ALWAYS_CONNECTED}>
                <Shell connection={connection} />
              </ConnectionContext.Provider>
            </StatsProvider>
          </ConfirmProvider>
        </NoticeProvider>
      </ChangesProvider>
    </ApiProvider>
  );
}

function Shell({ connection }: { connection?: ConnectionSignal }) {
  const [route, navigate] = useRoute();
  const [filters, setFilters] = useState<TaskFilters>(NO_FILTERS);
  const [prefill, setPrefill] = useState<{ task: Task | null; version: number }>({
    task: null,
    version: 0,
  });
  const stats = useStats();
  const api = useApi();

  // The desktop app asks for a task or the failures when a notification or tray item is clicked.
  useEffect(
    () =>
      api.subscribe((e) => {
        if (e.type !== 'navigate') return;
        if (e.data.taskId !== undefined) navigate({ screen: 'tasks', taskId: e.data.taskId });
        else navigate({ screen: 'failures', taskId: null });
      }),
    [api, navigate],
  );

  useEffect(() => {
    document.title = `Semaforo — ${SCREEN_TITLES[route.screen]}`;
  }, [route.screen]);

  // A schedule's "all N tasks" opened in a new tab or window: its filter, then plain #/tasks (a
  // reload or Back does not set it again over what the user changed since).
  const { scheduleTasks } = route;
  useEffect(() => {
    if (!scheduleTasks) return;
    setFilters({ ...NO_FILTERS, schedule: scheduleTasks });
    navigate({ screen: 'tasks', taskId: null }, { replace: true });
  }, [scheduleTasks, navigate]);

  const openTask = useCallback(
    (task: Task) => navigate({ screen: route.screen === 'new' ? 'tasks' : route.screen, taskId: task.id }),
    [navigate, route.screen],
  );
  const openTaskById = useCallback(
    (taskId: number) => navigate({ screen: route.screen, taskId }),
    [navigate, route.screen],
  );
  const showSchedules = useCallback(() => navigate({ screen: 'schedules', taskId: null }), [navigate]);
  const closeTask = useCallback(
    () => navigate({ screen: route.screen, taskId: null }),
    [navigate, route.screen],
  );
  const newTask = useCallback(() => {
    setPrefill((p) => ({ task: null, version: p.version + 1 }));
    navigate({ screen: 'new', taskId: null });
  }, [navigate]);
  const duplicate = useCallback(
    (task: Task) => {
      setPrefill((p) => ({ task, version: p.version + 1 }));
      navigate({ screen: 'new', taskId: null });
    },
    [navigate],
  );
  const showTasks = useCallback(
    (status: TaskStatus[]) => {
      setFilters({ ...NO_FILTERS, status });
      navigate({ screen: 'tasks', taskId: null });
    },
    [navigate],
  );

  let screen;
  switch (route.screen) {
    case 'overview':
      screen = (
        <OverviewScreen
          openTask={openTask}
          showTasks={showTasks}
          showFailures={() => navigate({ screen: 'failures', taskId: null })}
        />
      );
      break;
    case 'tasks':
      screen = (
        <TasksScreen
          filters={filters}
          setFilters={setFilters}
          openTaskId={route.taskId}
          openTask={openTask}
          closeTask={closeTask}
          newTask={newTask}
        />
      );
      break;
    case 'failures':
      screen = <FailuresScreen openTask={openTask} openTaskId={route.taskId} />;
      break;
    case 'schedules':
      screen = (
        <SchedulesScreen
          openTaskId={route.taskId}
          openTask={openTaskById}
          showTasks={(sc) => {
            setFilters({ ...NO_FILTERS, schedule: { id: sc.id, name: sc.name } });
            navigate({ screen: 'tasks', taskId: null });
          }}
          newSchedule={() => navigate({ screen: 'new-schedule', taskId: null })}
          editSchedule={(name) => navigate({ screen: 'edit-schedule', taskId: null, schedule: name })}
        />
      );
      break;
    case 'new-schedule':
    case 'edit-schedule':
      screen = (
        <ScheduleFormScreen
          key={route.schedule ?? ''}
          name={route.screen === 'edit-schedule' ? (route.schedule ?? null) : null}
          onSaved={showSchedules}
          onCancel={showSchedules}
        />
      );
      break;
    case 'groups':
      screen = <GroupsScreen />;
      break;
    case 'workers':
      screen = <WorkersScreen openTask={openTaskById} />;
      break;
    case 'settings':
      screen = <SettingsScreen />;
      break;
    case 'new':
      screen = (
        <NewTaskScreen
          key={prefill.version}
          from={prefill.task}
          onCreated={(id) => navigate({ screen: 'tasks', taskId: id })}
        />
      );
      break;
  }

  return (
    <div className={`app${route.taskId !== null ? ' with-detail' : ''}`}>
      <Rail
        route={route}
        navigate={navigate}
        failed={stats.data?.counts.failed}
        queueState={stats.data ? queueState(stats.data) : undefined}
      />
      <main className="main" aria-label={SCREEN_TITLES[route.screen]}>
        {connection && <ConnectionBanner connection={connection} />}
        <ChunkBoundary key={route.screen} loading="Loading…" what="this screen">
          {screen}
        </ChunkBoundary>
      </main>
      {route.taskId !== null && (
        <TaskDetailPanel
          key={route.taskId}
          taskId={route.taskId}
          onClose={closeTask}
          onDuplicate={duplicate}
        />
      )}
      <NoticeArea />
    </div>
  );
}
