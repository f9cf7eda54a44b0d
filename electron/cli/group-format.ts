/** Human output of `group list` and `group show`, limits learned by adaptive groups included. */
import { learnedOf, learnedRate, learnedText } from '../../shared/adaptive-view.ts';
import type { GroupInfo, LimitPoint } from '../../shared/domain.ts';
import { formatDuration, formatRate } from '../../shared/durations.ts';
import { relativeTime, table } from './format.ts';

function concurrencyCell(g: GroupInfo): string {
  if (g.concurrency === null) return '-';
  const l = learnedOf(g);
  return l?.concurrency && l.concurrency.now < l.concurrency.cap
    ? `${l.concurrency.now} of ${g.concurrency}`
    : String(g.concurrency);
}

function rateCell(g: GroupInfo): string {
  if (!g.rate) return 'none';
  const l = learnedOf(g);
  const burst = g.burst !== null && g.burst > 1 ? `, burst ${Math.min(g.burst, g.rate.limit)}` : '';
  if (l === null) return `${formatRate(g.rate)}${burst} (${g.rateUsed} used)`;
  return l.rate && l.lowered && l.rate.now < g.rate.limit - 0.05
    ? `${learnedRate(l.rate.now, g.rate)} of ${formatRate(g.rate)}`
    : formatRate(g.rate);
}

function stateCell(g: GroupInfo, now: number): string {
  if (g.paused) return 'paused';
  if (g.blockedUntil !== null && g.blockedUntil > now) return 'backing off';
  const l = learnedOf(g);
  if (l === null) return 'open';
  return l.lowered ? 'adaptive, lowered' : 'adaptive';
}

export function groupTable(groups: readonly GroupInfo[], now = Date.now()): string {
  if (groups.length === 0) return 'No groups yet (a group appears with its first task or `group set`).';
  return table(
    ['GROUP', 'CONCURRENCY', 'RATE', 'STATE', 'RUNNING', 'PENDING', 'RETRYING', 'FAILED', 'DONE'],
    groups.map((g) => [
      g.name,
      concurrencyCell(g),
      rateCell(g),
      stateCell(g, now),
      String(g.counts.running),
      String(g.counts.pending),
      String(g.counts.retrying),
      String(g.counts.failed),
      String(g.counts.done),
    ]),
  );
}

const BARS = '▁▂▃▄▅▆▇█';

/** The learned rate over time as one line of bars, scaled to the cap (newest right). */
export function sparkline(points: readonly LimitPoint[], cap: number, width = 40): string {
  const rates = points.flatMap((p) => (p.rate === null ? [] : [p.rate])).slice(-width);
  return rates.map((r) => BARS[Math.min(BARS.length - 1, Math.floor((r / cap) * BARS.length))]).join('');
}

/** How the rate's starts are spread: `, one start every 200ms` or `, in bursts of 5`. */
function spacing(g: GroupInfo): string {
  if (!g.rate) return '';
  if (g.burst !== null && g.burst > 1) return `, in bursts of ${Math.min(g.burst, g.rate.limit)}`;
  return g.adaptive
    ? ', evenly spaced'
    : `, one start every ${formatDuration(Math.ceil(g.rate.periodMs / g.rate.limit))}`;
}

export function groupDetail(g: GroupInfo, now: number): string {
  const lines = [
    `group ${g.name}`,
    `  concurrency  ${g.concurrency ?? 'none'}${g.adaptive ? ' (cap)' : ''}`,
    `  rate         ${formatRate(g.rate)}${g.adaptive && g.rate ? ' (cap)' : ''}${spacing(g)}`,
    `  state        ${stateCell(g, now)}`,
  ];
  const l = learnedOf(g);
  const a = g.adaptive;
  if (l !== null && a !== null) {
    lines.push(`  learned      ${learnedText(l)}`);
    if (l.rate && a.ceiling !== null)
      lines.push(`  ceiling      ${learnedRate(a.ceiling, l.rate.cap)} (the rate of the last cut)`);
    lines.push(
      a.lastThrottleAt === null
        ? '  throttled    never'
        : `  throttled    ${relativeTime(a.lastThrottleAt, now)}: ${a.lastThrottle ?? ''}`,
    );
    if (l.rate && a.history.length > 1) {
      const first = a.history[0]!.at;
      lines.push(
        `  history      ${sparkline(a.history, l.rate.cap.limit)}  (since ${relativeTime(first, now)})`,
      );
    }
  }
  const c = g.counts;
  lines.push(
    `  tasks        ${c.running} running, ${c.pending} pending, ${c.retrying} retrying, ${c.failed} failed, ${c.done} done`,
  );
  return lines.join('\n');
}
