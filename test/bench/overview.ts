/**
 * The server time of the Overview's data (`stats` and `hourSeries`, the two requests the screen
 * makes) on a SQLite queue of 100,000 tasks: 90,000 finished over the last hour (one in seven
 * failed), 10,000 pending. Run: `node test/bench/overview.ts`; prints the median of 7 runs each.
 */
import path from 'node:path';
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
  for (let i = 0; i < TOTAL; i += 5000) await store.enqueue(tasks(5000, { maxAttempts: 1 }), start - 1000);
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
  const times = { stats: [] as number[], hourSeries: [] as number[], both: [] as number[] };
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await engine.stats(5);
    const t1 = performance.now();
    const s = await engine.hourSeries();
    const t2 = performance.now();
    if (i === 0) console.log(`finished in the hour: ${s.finished}, failed: ${s.failed}`);
    times.stats.push(t1 - t0);
    times.hourSeries.push(t2 - t1);
    times.both.push(t2 - t0);
  }
  await engine.close();
  for (const [k, v] of Object.entries(times)) console.log(`${k}: median ${median(v).toFixed(1)} ms`);
}

await main();
