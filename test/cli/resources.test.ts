/**
 * Named resources through the CLI, with two `semaforo work` processes on one queue: the shell
 * tasks write their own start and end times, and the limits are judged from those.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { ResourceInfo, Task } from '../../shared/domain.ts';
import { exited, waitFor } from '../helpers.ts';
import { cli, freshDb, json, startCli } from './cli-helpers.ts';

const workers: ChildProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.kill('SIGTERM');
    await exited(w);
  }
});

/** A shell task that logs "LABEL start|end NANOS" around a short sleep. */
function logging(log: string, label: string, group: string, uses: string) {
  const line = (ev: string) => `echo "$1 ${ev} $(date +%s%N)" >> '${log}'`;
  return {
    kind: 'shell',
    name: label,
    group,
    uses,
    payload: { command: 'sh', args: ['-c', `${line('start')}; sleep 0.2; ${line('end')}`, 'sh', label] },
  };
}

interface Run {
  label: string;
  start: bigint;
  end: bigint;
}

function runsOf(log: string): Run[] {
  const at = new Map<string, Partial<Run>>();
  for (const l of fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const [label, ev, t] = l.split(' ') as [string, 'start' | 'end', string];
    at.set(label, { ...at.get(label), label, [ev]: BigInt(t) });
  }
  return [...at.values()] as Run[];
}

const overlaps = (a: Run, b: Run) => a.start < b.end && b.start < a.end;

describe('semaforo resource', () => {
  it('keeps main-db to one task at a time and cpu within 4 across two worker processes', async () => {
    const db = freshDb();
    const log = path.join(path.dirname(db), 'runs.log');
    expect(
      json<ResourceInfo>(await cli(['resource', 'set', 'main-db', '--capacity', '1', '--json'], { db })),
    ).toMatchObject({ name: 'main-db', capacity: 1 });
    expect((await cli(['resource', 'set', 'cpu', '--capacity', '4'], { db })).stdout).toContain('capacity 4');
    expect((await cli(['settings', '--concurrency', '10'], { db })).code).toBe(0);
    const specs = [
      ...Array.from({ length: 3 }, (_, i) => logging(log, `backup${i}`, 'backups', 'main-db')),
      ...Array.from({ length: 3 }, (_, i) => logging(log, `migrate${i}`, 'deploys', 'main-db')),
      logging(log, 'heavy', 'encode', 'cpu:3'),
      ...Array.from({ length: 4 }, (_, i) => logging(log, `light${i}`, `thumbs${i % 2}`, 'cpu')),
    ];
    const enq = await cli(['enqueue', '--stdin'], {
      db,
      stdin: specs.map((s) => JSON.stringify(s)).join('\n'),
    });
    expect(enq.code, enq.stderr).toBe(0);
    const list = json<ResourceInfo[]>(await cli(['resource', 'list', '--json'], { db }));
    expect(list.map((r) => [r.name, r.waiting])).toEqual([
      ['cpu', 5],
      ['main-db', 6],
    ]);
    workers.push(await startCli(['work'], db, 'dispatching from'));
    workers.push(await startCli(['work'], db, 'dispatching from'));
    await waitFor(
      async () =>
        json<{ counts: { done: number } }>(await cli(['stats', '--json'], { db })).counts.done === 11,
      'all 11 tasks done',
      120_000,
    );
    const runs = runsOf(log);
    expect(runs).toHaveLength(11);
    const dbRuns = runs.filter((r) => /^(backup|migrate)/.test(r.label));
    for (const a of dbRuns)
      for (const b of dbRuns) if (a !== b) expect(overlaps(a, b), `${a.label} ${b.label}`).toBe(false);
    const heavy = runs.find((r) => r.label === 'heavy')!;
    const lights = runs.filter((r) => r.label.startsWith('light'));
    // At any light's start during the heavy run, no other light runs beside it.
    for (const l of lights.filter((x) => overlaps(x, heavy)))
      for (const other of lights)
        if (other !== l) expect(overlaps(l, other) && overlaps(other, heavy)).toBe(false);
  });

  it('says which resource a task waits for, and refuses a bad --uses in one line', async () => {
    const db = freshDb();
    const enq = await cli(['enqueue', '--uses', 'gpu:2', '--json', '--', 'true'], { db });
    const task = json<Task>(enq);
    expect(task.uses).toEqual([{ resource: 'gpu', weight: 2 }]);
    const show = await cli(['show', String(task.id)], { db });
    // "waiting" said once: the label, then the reason after it
    expect(show.stdout).toMatch(/^ {2}waiting {4}for gpu: no such resource \(semaforo resource set gpu/m);
    expect(show.stdout).toMatch(/uses +gpu:2/);
    // and in list's column, under its header's "WAITING"
    const listed = (await cli(['list'], { db })).stdout;
    expect(listed).toContain('ERROR / WAITING');
    expect(listed).toMatch(/ for gpu: no such resource/);
    expect(listed).not.toMatch(/waiting for gpu/);
    await cli(['resource', 'set', 'gpu', '--capacity', '1'], { db });
    expect((await cli(['show', String(task.id)], { db })).stdout).toContain('needs 2 but its capacity is 1');
    const bad = await cli(['enqueue', '--uses', 'cpu:0', '--', 'true'], { db });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--uses: the weight of cpu must be a whole number from 1');
    // An empty --uses (an unset "$RES") is a slip, not "no resources".
    const empty = await cli(['enqueue', '--uses', '', '--', 'true'], { db });
    expect(empty.code).not.toBe(0);
    expect(empty.stderr.trim()).toBe(
      'semaforo: --uses: names no resource (e.g. cpu:2,nas); leave it out for none',
    );
    const stdin = await cli(['enqueue', '--stdin'], {
      db,
      stdin: '{"kind":"shell","uses":"a,a","payload":{"command":"true"}}',
    });
    expect(stdin.stderr).toContain('uses: names a twice');
    // A schedule's runs carry the uses of its template.
    const sched = await cli(['schedule', 'add', 'nightly', '--every', '1h', '--uses', 'gpu', '--', 'true'], {
      db,
    });
    expect(sched.code, sched.stderr).toBe(0);
    expect((await cli(['schedule', 'run-now', 'nightly'], { db })).code).toBe(0);
    const runs = json<Task[]>(await cli(['list', '--json'], { db })).filter((t) => t.scheduleId !== null);
    expect(runs.map((t) => t.uses)).toEqual([[{ resource: 'gpu', weight: 1 }]]);
    const removed = await cli(['resource', 'remove', 'nope'], { db });
    expect(removed.code).not.toBe(0);
    expect(removed.stderr).toContain('resource "nope" does not exist');
  });
});
