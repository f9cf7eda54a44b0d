/**
 * The server time of the Overview's data (`stats` and `throughputSeries`, the two requests the
 * screen makes) on a SQLite queue of 100,000 tasks in 20 groups: 90,000 finished over the last
 * hour (one in seven failed), 10,000 pending; the series over each range (every finished task is
 * in each), and as its peer the same bucketed count without the group dimension, as one raw
 * statement. Run: `node test/bench/overview.ts`; prints the median of 7 runs each. With
 * `--pg`, the same queue in a fresh schema of the test PostgreSQL (SEMAFORO_TEST_PG), the store
 * read timed directly, and the schema dropped after.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SERIES_SHAPES } from '../../electron/core/policy/throughput-series.ts';
import { freshSchemaName, PG_TEST_URL, pgLocation } from '../conformance/pg-backend.ts';
import { createEngine } from '../../electron/core/engine.ts';
import { openStore } from '../../electron/core/store/open-store.ts';
import { A, claim, done, ended, finish, tasks } from '../conformance/shapes.ts';
import { benchDir } from './tmp.ts';

const TOTAL = 100_000;
const FINISHED = 90_000;
const BATCH = 1000;
const HOUR = 3600_000;

async function fixture(file: string): Promise<void> {
  const store = await openStore(file);
  await store.updateSettings({ globalConcurrency: 10_000 });
  const start = Date.now() - HOUR;
  for (let i = 0; i < TOTAL; i += 5000)
    await store.enqueue(tasks(5000, { maxAttempts: 1, group: `g${i / 5000}` }), start - 1000);
  // Finish in batches spread evenly over the last hour, so every 5-minute bucket has some.
  const step = HOUR / (FINISHED / BATCH);
  for (let b = 0; b < FINISHED / BATCH; b++) {
    const at = start + b * step;
    const claimed = await claim(store, A, BATCH, at);
    await finish(
      store,
      A,
      at + 50,
      ...claimed.map((c, i) => (i % 7 === 0 ? ended(c, 'failed', 'failed') : done(c))),
    );
  }
  await store.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const file = path.join(benchDir(), 'queue.db');
  await fixture(file);
  const engine = await createEngine({ file });
  const raw = new Database(file, { readonly: true });
  const ungrouped = raw.prepare(
    `SELECT max(0, min(@count - 1, CAST((@now - finished_at) / @bucketMs AS INTEGER))) AS k, status, count(*) AS n
     FROM tasks INDEXED BY tasks_ended
     WHERE status IN ('done', 'failed') AND finished_at IS NOT NULL AND finished_at >= @now - @count * @bucketMs
     GROUP BY k, status`,
  );
  const times: Record<string, number[]> = {
    stats: [],
    '1h': [],
    '24h': [],
    '7d': [],
    'peer: 1h without groups': [],
  };
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await engine.stats(5);
    times.stats!.push(performance.now() - t0);
    for (const range of ['1h', '24h', '7d'] as const) {
      const t1 = performance.now();
      const s = await engine.throughputSeries(range);
      times[range]!.push(performance.now() - t1);
      if (i === 0)
        console.log(`${range}: ${s.finished} finished, ${s.failed} failed, ${s.groups.length} groups`);
    }
    const t2 = performance.now();
    ungrouped.all({ now: Date.now(), bucketMs: 300_000, count: 12 });
    times['peer: 1h without groups']!.push(performance.now() - t2);
  }
  raw.close();
  await engine.close();
  for (const [k, v] of Object.entries(times)) console.log(`${k}: median ${median(v).toFixed(1)} ms`);
  const ratio = median(times['1h']!) / median(times['peer: 1h without groups']!);
  console.log(`1h by group / peer: ${ratio.toFixed(2)}x`);
}

/** The store read of each range on PostgreSQL, and the same count without groups as its peer. */
async function onPostgres(): Promise<void> {
  const schema = freshSchemaName('bench');
  await fixture(pgLocation(schema));
  const store = await openStore(pgLocation(schema));
  const raw = new pg.Client({ connectionString: PG_TEST_URL });
  await raw.connect();
  const times: Record<string, number[]> = { '1h': [], '24h': [], '7d': [], 'peer: 1h without groups': [] };
  try {
    for (let i = 0; i < 7; i++) {
      for (const range of ['1h', '24h', '7d'] as const) {
        const { bucketMs, count } = SERIES_SHAPES[range];
        const t = performance.now();
        await store.finishedSeries(Date.now(), bucketMs, count);
        times[range]!.push(performance.now() - t);
      }
      const now = Date.now();
      const t = performance.now();
      await raw.query(
        `SELECT greatest(0, least(11, floor(($1::double precision - finished_at) / 300000)))::int AS k,
           status, count(*)::int AS n
         FROM "${schema}".tasks
         WHERE status = ANY('{done,failed}') AND finished_at IS NOT NULL AND finished_at >= $2
         GROUP BY 1, 2`,
        [now, now - 12 * 300_000],
      );
      times['peer: 1h without groups']!.push(performance.now() - t);
    }
  } finally {
    await store.close();
    await raw.query(`DROP SCHEMA "${schema}" CASCADE`);
    await raw.end();
  }
  for (const [k, v] of Object.entries(times)) console.log(`pg ${k}: median ${median(v).toFixed(1)} ms`);
  const ratio = median(times['1h']!) / median(times['peer: 1h without groups']!);
  console.log(`pg 1h by group / peer: ${ratio.toFixed(2)}x`);
}

await (process.argv.includes('--pg') ? onPostgres() : main());
