/** The Workers screen: who holds which leases, since when, on every host of the queue. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { enqueueMany } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

// A worker on another host: serve's reaper judges it by its lease only, which outlives the test.
const NIGHTLY = { id: 'nightly@build-7:4242:ab', pid: 4242, host: 'build-7' };
const HOUR = 3_600_000;

/** Two tasks leased to NIGHTLY, started 3 and 2 minutes ago. */
function leasedQueue(db: string): number[] {
  const store = new SqliteTaskStore(db);
  const spec = (name: string, group: string) => ({
    kind: 'shell',
    name,
    group,
    priority: 5,
    maxAttempts: 1,
    payload: '{"command":"true"}',
    runAt: 0,
    timeout: null,
    unique: null,
  });
  store.enqueue([spec('pg_dump main', 'backups'), spec('rsync photos', 'disk')], 0);
  const ids: number[] = [];
  for (const ago of [180_000, 120_000]) {
    const at = Date.now() - ago;
    const [c] = store.tick({
      now: () => at,
      worker: NIGHTLY,
      leaseMs: HOUR,
      finishes: [],
      claimMax: 1,
    }).claimed;
    ids.push(c!.task.id);
  }
  store.close();
  return ids;
}

describe.skipIf(!hasChromium)('the Workers screen', () => {
  const open = dashboardSession();

  it("lists each lease owner's host, pid and tasks, follows a new claim, and opens a task", async () => {
    let ids: number[] = [];
    const { db, page } = await open({ before: async (db) => void (ids = leasedQueue(db)) });
    await go(page, 'Workers');

    const nightly = page.getByRole('region', { name: NIGHTLY.id });
    await nightly.getByText('host build-7 · pid 4242 · 2 tasks · since 3 min ago').waitFor();
    const table = nightly.getByRole('table', { name: `Tasks leased to ${NIGHTLY.id}` });
    const rows = table.getByRole('row');
    await expect
      .poll(() => rows.allInnerTexts())
      .toEqual([
        expect.stringMatching(/^Task\s+Group\s+Started\s+Lease$/),
        expect.stringMatching(
          new RegExp(`^pg_dump main #${ids[0]} · shell\\s+backups\\s+3 min ago\\s+expires in 5\\d min$`),
        ),
        expect.stringMatching(
          new RegExp(`^rsync photos #${ids[1]} · shell\\s+disk\\s+2 min ago\\s+expires in 5\\d min$`),
        ),
      ]);
    await screenshot(page, 'workers');

    // serve's own worker claims a new task; the screen shows it without a reload
    await enqueueMany(db, [{ kind: 'sleep', name: 'long nap', payload: { ms: 60_000 } }]);
    const serving = page.getByRole('region', { name: /^serve@/ });
    await serving.getByRole('link', { name: 'long nap' }).waitFor();
    await serving.getByText(/· pid \d+ · 1 task · since just now$/).waitFor();
    expect(
      await page
        .getByRole('region')
        .filter({ has: page.getByRole('table') })
        .count(),
    ).toBe(2);

    await table.getByRole('link', { name: 'pg_dump main' }).click();
    await page.getByRole('complementary', { name: 'pg_dump main' }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/workers/${ids[0]}`);
  });

  it('fits a phone-width screen: no sideways scroll, every cell inside its panel', async () => {
    const { page } = await open({
      before: async (db) => void leasedQueue(db),
      viewport: { width: 420, height: 800 },
    });
    await go(page, 'Workers');
    const panel = page.getByRole('region', { name: NIGHTLY.id });
    await panel.getByRole('link', { name: 'rsync photos' }).waitFor();
    const box = (await panel.boundingBox())!;
    const cells = await panel.locator('th, td').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { text: e.textContent, right: r.right, clipped: e.scrollWidth > e.clientWidth + 1 };
      }),
    );
    expect(cells).toHaveLength(12);
    for (const c of cells) {
      expect(c.right, `${c.text} ends inside the panel`).toBeLessThanOrEqual(box.x + box.width + 0.5);
      expect(c.clipped, `${c.text} is clipped`).toBe(false);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, 'workers-420');
  });

  it('says so when no worker holds a lease', async () => {
    const { page } = await open();
    await go(page, 'Workers');
    await page.getByText('No worker holds a lease').waitFor();
  });
});
