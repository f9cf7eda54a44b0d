/** Prints the results: an aligned text table (default), Markdown (RESULTS.md), or JSON. */
import { fmt, fmtRatio } from './stats.ts';
import { SYSTEM_LABELS, SYSTEMS, type Peer, type Row, type ScenarioResult, type System } from './scenario.ts';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  sqlite: string;
  redis: string | null;
  tmpdir: string;
}

export interface Report {
  date: string;
  machine: Machine;
  options: { rounds: number; quick: boolean; scenarios: string[] };
  skipped: string[];
  scenarios: ScenarioResult[];
}

/** The systems a scenario's rows have figures for, in the table's order; Semaforo always. */
function systemsOf(sc: ScenarioResult): System[] {
  return SYSTEMS.filter((s) => s === 'semaforo' || sc.rows.some((r) => s in r.values));
}

function head(systems: readonly System[]): string[] {
  const peers = systems.filter((s): s is Peer => s !== 'semaforo');
  return [
    'measure',
    'unit',
    ...systems.map((s) => SYSTEM_LABELS[s]),
    ...peers.map((p) => `S/${SYSTEM_LABELS[p]}`),
    'goal',
  ];
}

function goalText(row: Row): string {
  if (!row.goal) return '';
  const verdict = row.goal.met === null ? 'n/a' : row.goal.met ? 'met' : 'MISSED';
  return `${row.goal.text}: ${verdict}`;
}

function cells(row: Row, systems: readonly System[]): string[] {
  const v = (s: System) => (s in row.values ? fmt(row.values[s] ?? null) : '');
  const r = (p: Peer) => (p in row.ratios ? fmtRatio(row.ratios[p] ?? null) : '');
  const unit = `${row.unit} ${row.better === 'higher' ? '↑' : '↓'}`;
  const peers = systems.filter((s): s is Peer => s !== 'semaforo');
  return [row.metric, unit, ...systems.map(v), ...peers.map(r), goalText(row)];
}

export function textReport(rep: Report): string {
  const lines: string[] = [];
  lines.push(machineLine(rep));
  for (const s of rep.skipped) lines.push(`skipped: ${s}`);
  for (const sc of rep.scenarios) {
    const systems = systemsOf(sc);
    const h = head(systems);
    const body = sc.rows.map((r) => cells(r, systems));
    const widths = h.map((x, i) => Math.max(x.length, ...body.map((c) => c[i]!.length)));
    const last = h.length - 1;
    const line = (c: string[]) =>
      c
        .map((x, i) => (i === 0 || i === 1 || i === last ? x.padEnd(widths[i]!) : x.padStart(widths[i]!)))
        .join('  ')
        .trimEnd();
    lines.push('', `== ${sc.title}`, line(h), line(widths.map((w) => '-'.repeat(w))));
    for (const c of body) lines.push(line(c));
    for (const c of sc.checks) lines.push(`  [${c.pass ? 'pass' : 'FAIL'}] ${c.what} (${c.detail})`);
    for (const n of sc.notes) lines.push(`  note: ${n}`);
  }
  return lines.join('\n');
}

export function markdownReport(rep: Report): string {
  const lines: string[] = [];
  lines.push(`Measured ${rep.date}. ${machineLine(rep)}`, '');
  const args = [
    rep.options.quick ? '--quick' : '',
    rep.options.rounds !== 3 ? `--rounds ${rep.options.rounds}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  lines.push(
    `Reproduce: \`npm run bench -- ${args ? `${args} ` : ''}--md test/bench/RESULTS.md\` ` +
      '(or `node test/bench/run.ts ...` under Node 22; `--json` for every figure, `--scenario NAME` for one).',
    '',
  );
  for (const s of rep.skipped) lines.push(`Skipped: ${s}.`, '');
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  for (const sc of rep.scenarios) {
    lines.push(`### ${sc.title}`, '');
    const systems = systemsOf(sc);
    const h = head(systems);
    lines.push(
      `| ${h.join(' | ')} |`,
      `|${h.map((_, i) => (i < 2 || i === h.length - 1 ? ' --- ' : ' ---: ')).join('|')}|`,
    );
    for (const row of sc.rows) lines.push(`| ${cells(row, systems).map(esc).join(' | ')} |`);
    lines.push('');
    for (const c of sc.checks) lines.push(`- ${c.pass ? 'pass' : '**FAIL**'}: ${c.what} (${c.detail})`);
    if (sc.checks.length) lines.push('');
    for (const n of sc.notes) lines.push(`_${n}_`, '');
  }
  return lines.join('\n');
}

function machineLine(rep: Report): string {
  const m = rep.machine;
  return (
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}; Node ${m.node}, SQLite ${m.sqlite}` +
    `${m.redis ? `, Redis ${m.redis}` : ''}; files in ${m.tmpdir}. ` +
    `Medians of ${rep.options.rounds} round(s)${rep.options.quick ? ', --quick sizes' : ''}; ` +
    'ratios are Semaforo / peer (↑: higher is better, ↓: lower is better).'
  );
}
