/**
 * The Failures screen groups real failures by cause: curl run twelve times against twelve URLs of
 * a server that is down is one group titled by its exit code and curl's own line, with the command
 * below; a multi-line `python3 -c` script shows its KeyError.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM) && fs.existsSync('/usr/bin/curl');
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM} or no curl`);

const SCRIPT = "import json\nrow = json.loads('{}')\nprint(row['customer_id'])";

describe.skipIf(!hasChromium)('Failures screen on real failures', () => {
  const open = dashboardSession();

  it('makes twelve curl failures to different URLs one group and shows a python KeyError', async () => {
    const before = async (db: string) => {
      // Port 1 on loopback: nothing listens, so curl exits 7 ("Failed to connect") at once.
      const curls = Array.from({ length: 12 }, (_, i) => ({
        name: `sync-order-${i}`,
        kind: 'shell',
        maxAttempts: 1,
        payload: { command: 'curl', args: ['-sS', `http://127.0.0.1:1/orders/${1000 + i}?page=${i}`] },
      }));
      const python = [1, 2].map((i) => ({
        name: `import-customers-${i}`,
        kind: 'shell',
        maxAttempts: 1,
        payload: { command: 'python3', args: ['-c', SCRIPT] },
      }));
      await enqueueMany(db, [...curls, ...python]);
      await semaforo(db, ['work', '--drain']);
    };
    const { page } = await open({ before });
    await go(page, 'Failures');
    const curl = page.getByRole('region', { name: /^shell exit 7 · curl: \(7\) Failed to connect/ });
    await curl.waitFor();
    await curl.getByText('12 tasks').waitFor();
    // Each task is a link to its detail (Ctrl+click opens it in a tab).
    expect(await curl.getByRole('link', { name: /^sync-order-0 / }).getAttribute('href')).toMatch(
      /^#\/tasks\/\d+$/,
    );
    expect(await curl.locator('.failure-command').innerText()).toMatch(
      /^curl -sS http:\/\/127\.0\.0\.1:1\/orders\/\d+\?page=\d+$/,
    );
    const python = page.getByRole('region', { name: "shell exit 1 · KeyError: 'customer_id'" });
    await python.getByText('2 tasks').waitFor();
    expect(await python.locator('.failure-command').innerText()).toMatch(/^python3 -c import json/);
    expect(await page.locator('.failure-group').count()).toBe(2);
    await screenshot(page, 'failures-grouped');
  });
});
