/**
 * Two machines on one PostgreSQL queue, played by processes with their own SEMAFORO_HOST_ID. A
 * pid is only meaningful on its own machine: another host's live lease, whose pid does not exist
 * here, must not be taken for a dead process of this one (same hostname or not), or its task runs
 * twice. Once that host stops renewing, its lease's expiry gives the task back.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../electron/core/engine.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { exited, spawnNode, tempDir, waitFor } from '../helpers.ts';
import { probeHandler, readProbeLog } from './fixtures/probe.ts';

const HOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'far-holder.ts');
const schemas: string[] = [];
const savedHostId = process.env.SEMAFORO_HOST_ID;

afterEach(async () => {
  if (savedHostId === undefined) delete process.env.SEMAFORO_HOST_ID;
  else process.env.SEMAFORO_HOST_ID = savedHostId;
  for (const s of schemas.splice(0)) await dropSchema(s);
});

interface Lease {
  id: number;
  until: number;
  host?: string;
}

describe.skipIf(!pgAvailable)('two hosts on one PostgreSQL queue', () => {
  it("leaves another host's live lease alone and reclaims it once it stops renewing", async () => {
    const schema = freshSchemaName('hosts');
    schemas.push(schema);
    const db = pgLocation(schema);
    const log = path.join(tempDir(), 'log.jsonl');
    process.env.SEMAFORO_HOST_ID = 'host-b';
    const here = await createEngine({
      file: db,
      handlers: [probeHandler(log, 'b')],
      leaseMs: 1000,
      reapIntervalMs: 100,
      pollIntervalMs: 10,
    });
    await here.enqueueMany([{ kind: 'probe', group: 'g', payload: { ms: 0 } }]);
    const far = spawnNode([HOLDER, db, '1000'], { SEMAFORO_HOST_ID: 'host-a' });
    let out = '';
    far.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const leases = () =>
      out
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Lease);
    const [first] = await waitFor(() => leases().length > 0 && leases(), 'the far host to claim', 30_000);
    here.start();
    // Renewed past its first lease's end, several reaper rounds of this host later: still held.
    await waitFor(
      () => leases().some((l) => l.until > first!.until + 2000) && leases(),
      'renewals past the first lease',
      30_000,
    );
    expect(await here.getTask(first!.id)).toMatchObject({ status: 'running', attempts: 1 });
    expect(readProbeLog(log)).toEqual([]);
    expect(first!.host).toBe('host-a');
    far.kill('SIGKILL');
    await exited(far);
    const lastUntil = Math.max(...leases().map((l) => l.until));
    await waitFor(
      async () => (await here.getTask(first!.id))?.status === 'done',
      'the task to run here',
      30_000,
    );
    const runs = readProbeLog(log).filter((l) => l.ev === 'start');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.t).toBeGreaterThanOrEqual(lastUntil - 50);
    await here.close();
  });
});
