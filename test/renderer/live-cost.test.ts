/**
 * What an open dashboard costs the server while tasks run: refreshes coalesced to one a second,
 * a screen's requests of one refresh sent as one batch, the charts as one request.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { enqueueMany } from './cli-processes.ts';
import { apiCall, waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

/** Counts the page's API requests (the event stream aside) until `stop()`. */
function countApiRequests(page: Page): { names: string[]; stop(): string[] } {
  const names: string[] = [];
  const onRequest = (r: { url(): string }) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/api/') && path !== '/api/events') names.push(path.slice('/api/'.length));
  };
  page.on('request', onRequest);
  return {
    names,
    stop: () => {
      page.off('request', onRequest);
      return names;
    },
  };
}

describe.skipIf(!hasChromium)('the cost of an open dashboard', () => {
  const open = dashboardSession();

  it('keeps an Overview open for 30 s while tasks run to at most ~35 requests', async () => {
    const { page, server } = await open();
    await page.getByText('nothing finished in the last hour').waitFor();
    // 300 half-second tasks, 4 at a time: they finish all through the 30 s watched below.
    await apiCall(server, 'updateSettings', { globalConcurrency: 4 });
    const counter = countApiRequests(page);
    await enqueueMany(
      server.db,
      Array.from({ length: 300 }, (_, i) => ({ name: `job-${i}`, kind: 'sleep', payload: { ms: 500 } })),
    );
    await waitForText(page.getByTestId('count-running'), '4');
    const doneAtStart = Number(await page.getByTestId('count-done').innerText());
    counter.names.length = 0;
    await page.waitForTimeout(30_000); // the window the budget is about, not a wait for an event
    const requests = counter.stop();
    const doneAtEnd = Number(await page.getByTestId('count-done').innerText());
    console.log(
      `overview, 30 s while tasks ran: ${requests.length} requests (${doneAtEnd - doneAtStart} done)`,
    );

    // Live all along: the counts moved, and the charts were refreshed within the same requests.
    expect(doneAtEnd - doneAtStart).toBeGreaterThan(20);
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.length).toBeLessThanOrEqual(35);
    expect(requests).not.toContain('metrics');
    await page.getByText(/^\d+ finished in the last hour$/).waitFor();
  });

  it('loads the Overview, charts included, with under 150 KB of compressed JavaScript', async () => {
    const { page } = await open();
    await page.getByText('nothing finished in the last hour').waitFor();
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.endsWith('.js'))
        .map((e) => {
          const r = e as PerformanceResourceTiming;
          return { name: new URL(r.name).pathname, encoded: r.encodedBodySize, decoded: r.decodedBodySize };
        }),
    );
    const encoded = scripts.reduce((n, s) => n + s.encoded, 0);
    const decoded = scripts.reduce((n, s) => n + s.decoded, 0);
    console.log(
      `Overview's JavaScript: ${(encoded / 1024).toFixed(1)} KB compressed, ${(decoded / 1024).toFixed(1)} KB ` +
        `uncompressed, ${scripts.length} files`,
    );
    expect(encoded).toBeLessThan(decoded / 2); // sent compressed
    expect(encoded).toBeLessThan(150 * 1024);
    // The validator and the forms are not part of it.
    expect(scripts.map((s) => s.name).filter((n) => /schemas|Form|Settings/.test(n))).toEqual([]);
  });
});
