import type { Route, ScreenId } from '../state/route.ts';
import { isPlainClick, railEntryOf, SCREEN_TITLES } from '../state/route.ts';
import { formatCount } from '../state/format.ts';
import type { QueueState } from '../state/status.ts';
import { QueueLight } from './QueueLight.tsx';

const ITEMS: { id: ScreenId; symbol: string }[] = [
  { id: 'overview', symbol: '◉' },
  { id: 'tasks', symbol: '☰' },
  { id: 'failures', symbol: '✕' },
  { id: 'schedules', symbol: '◷' },
  { id: 'groups', symbol: '▦' },
  { id: 'workers', symbol: '⚒' },
  { id: 'settings', symbol: '⚙' },
];

export function Rail(props: {
  route: Route;
  navigate: (route: Route) => void;
  failed: number | undefined;
  queueState: QueueState | undefined;
}) {
  const { route, navigate, failed, queueState } = props;
  return (
    <nav className="rail" aria-label="Screens">
      <div className="rail-brand">
        <span className="rail-name">Semaforo</span>
        {queueState && <QueueLight state={queueState} />}
      </div>
      <button
        type="button"
        className="primary rail-new"
        onClick={() => navigate({ screen: 'new', taskId: null })}
      >
        <span aria-hidden="true">+</span> New task
      </button>
      <ul>
        {ITEMS.map((item) => {
          const current = railEntryOf(route.screen) === item.id;
          return (
            <li key={item.id}>
              <a
                href={`#/${item.id}`}
                aria-current={route.screen === item.id ? 'page' : current ? 'true' : undefined}
                className={current ? 'current' : undefined}
                onClick={(e) => {
                  if (!isPlainClick(e)) return;
                  e.preventDefault();
                  navigate({ screen: item.id, taskId: null });
                }}
              >
                <span className="rail-symbol" aria-hidden="true">
                  {item.symbol}
                </span>
                <span className="rail-label">{SCREEN_TITLES[item.id]}</span>
                {item.id === 'failures' && failed !== undefined && failed > 0 && (
                  <span className="rail-count tone-red" aria-label={`${failed} failed`}>
                    {formatCount(failed)}
                  </span>
                )}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
