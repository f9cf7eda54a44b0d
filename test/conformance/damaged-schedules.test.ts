/**
 * A damaged schedules row (damaged by raw SQL, as a hand edit or a bad restore would): it lists
 * beside the others with what could be read and its problem, never enqueues a task (firing parks
 * it, a run now is refused naming it), and a replace repairs it; a remove removes it.
 */
import { describe, expect, it } from 'vitest';
import { backends, freshQueue, type Store } from './harness.ts';
import { everyMinute, fireAt, MIN, T0 } from './schedule-shapes.ts';

const fire = async (store: Store, now: number) => (await fireAt(store, now)).taskIds;

/** Each damage (one statement, the same SQL on both backends) and the problem it must show. */
const DAMAGES: { name: string; sql: string; problem: RegExp }[] = [
  {
    name: 'b-template',
    sql: "template = 'not json'",
    problem: /^the stored task template is damaged: not JSON$/,
  },
  {
    name: 'c-uses',
    sql: `template = '{"kind":"sleep","group":"default","payload":{},"uses":[{"resource":"no spaces","weight":1}]}'`,
    problem: /^the stored task template's uses are damaged: "no spaces" /,
  },
  {
    name: 'd-cron',
    sql: "cron = 'every tuesday', every_ms = NULL",
    problem: /^the cron expression "every tuesday" is not valid: /,
  },
  {
    name: 'e-zone',
    sql: "cron = '0 3 * * *', timezone = 'Mars/Olympus', every_ms = NULL",
    problem: /^the time zone "Mars\/Olympus" is not known$/,
  },
  {
    // past 2^53: PostgreSQL's bigint and SQLite's INTEGER both hold it, a JS number cannot
    name: 'f-column',
    sql: 'skipped_missed = 9223372036854775807',
    problem: /^a stored column is damaged: skipped_missed is 9223372036854776000, expected an integer$/,
  },
];

describe.each(backends)('damaged schedules on $name', (backend) => {
  async function damagedQueue() {
    const q = await freshQueue(backend);
    const made = new Map<string, number>();
    for (const name of ['a-good', ...DAMAGES.map((d) => d.name), 'z-good'])
      made.set(name, (await q.store.schedules.create(everyMinute(name), T0)).id);
    for (const d of DAMAGES)
      await backend.rawSql(q.location, `UPDATE schedules SET ${d.sql} WHERE name = '${d.name}'`);
    return { ...q, made };
  }

  it('lists every schedule, a damaged one with what could be read and its problem', async () => {
    const { store, made } = await damagedQueue();
    const list = await store.schedules.list();
    expect(list.map((s) => s.name)).toEqual([...made.keys()]);
    for (const s of list) {
      // what could be read stays: id, name, flag, times, counters
      expect(s).toMatchObject({ id: made.get(s.name), enabled: true, nextDueAt: T0 + MIN, createdAt: T0 });
      const damage = DAMAGES.find((d) => d.name === s.name);
      if (damage) expect(s.problem).toMatch(damage.problem);
      else expect(s).not.toHaveProperty('problem');
    }
    // a damaged template stands in as one that names nothing; one with bad uses keeps the rest
    expect(list.find((s) => s.name === 'b-template')!.task).toMatchObject({ kind: '', group: '' });
    expect(list.find((s) => s.name === 'c-uses')!.task).toEqual({ ...everyMinute('x').task, maxAttempts: 3 });
    expect((await store.schedules.get('d-cron'))!.problem).toMatch(DAMAGES[2]!.problem);
    expect(await store.schedules.nextDue()).toEqual({ name: 'a-good', dueAt: T0 + MIN });
  });

  it('fires the sound ones and parks the damaged ones, enqueuing nothing for them', async () => {
    const { store } = await damagedQueue();
    const { taskIds: ids, parked } = await fireAt(store, T0 + MIN);
    // each named once, with its problem, for the scheduler's log
    expect(parked.map((p) => p.name)).toEqual(expect.arrayContaining(DAMAGES.map((d) => d.name)));
    expect(parked).toHaveLength(DAMAGES.length);
    for (const p of parked) expect(p.problem).toMatch(DAMAGES.find((d) => d.name === p.name)!.problem);
    const tasks = (await store.listTasks({ limit: 50 })).tasks;
    expect(tasks.map((t) => t.name).toSorted()).toEqual(['a-good', 'z-good']);
    expect(ids.toSorted()).toEqual(tasks.map((t) => t.id).toSorted());
    for (const s of await store.schedules.list()) {
      if (s.name.endsWith('-good'))
        expect(s).toMatchObject({ enabled: true, nextDueAt: T0 + 2 * MIN, lastDueAt: T0 + MIN });
      else {
        expect(s).toMatchObject({ enabled: false, nextDueAt: null, lastTaskId: null });
        expect(s.problem).toMatch(DAMAGES.find((d) => d.name === s.name)!.problem);
      }
    }
    expect(await fire(store, T0 + MIN)).toEqual([]);
  });

  it('refuses a run now naming the schedule and its problem; a replace repairs any damage; a remove removes it', async () => {
    const { store } = await damagedQueue();
    for (const d of DAMAGES) {
      const err = await store.schedules.runNow(d.name, T0).catch((e: unknown) => e as Error);
      expect(err).toMatchObject({ name: 'ConflictError' });
      // one line: the schedule, then its problem, then what to do
      const [, problem] =
        /^schedule "[^"]+" cannot run: (.*) \(repair it with semaforo schedule update or in the dashboard, or remove it\)$/.exec(
          (err as Error).message,
        )!;
      expect((err as Error).message).toContain(`schedule "${d.name}"`);
      expect(problem).toMatch(d.problem);
    }
    expect((await store.listTasks({})).total).toBe(0);

    // every damage, a stored counter past 2^53 too: a counter that cannot be read starts again
    for (const d of DAMAGES) {
      const repaired = await store.schedules.replace(d.name, everyMinute(d.name), T0 + 1);
      expect(repaired, d.name).not.toHaveProperty('problem');
      expect(repaired).toMatchObject({ task: { kind: 'sleep' }, skippedMissed: 0, createdAt: T0 });
    }
    const { taskId } = await store.schedules.runNow('b-template', T0 + 2);
    expect(await store.getTask(taskId)).toMatchObject({ name: 'b-template', kind: 'sleep' });

    expect(await store.schedules.remove('d-cron')).toBe(true);
    expect((await store.schedules.list()).map((s) => s.name)).not.toContain('d-cron');
  });
});
