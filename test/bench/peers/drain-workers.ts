/**
 * A drain by several worker processes, the same way for every PostgreSQL system: the trial
 * process fills the queue, forks `workers` children (`<peer>.drainWorker`), and once each is
 * connected tells them all to start. Each child counts the jobs its handler ran and reports the
 * count every REPORT_MS; when the sum reaches `n` the parent tells them to stop, and each writes
 * its last completions (graphile-worker's runner.stop, pg-boss's graceful stop, Semaforo's
 * whenIdle) before it answers. Timed from the start until the last answer. No one polls the
 * database for the count, so the figure is the system's own work.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPORT_MS = 10;
const CHILD = path.join(import.meta.dirname, '..', 'worker-child.ts');

type ToChild = 'go' | 'stop';
type FromChild = { ready: true } | { handled: number } | { stopped: true };

function nextMessage(child: ChildProcess, want: (m: FromChild) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: FromChild) => {
      if (!want(m)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null) => reject(new Error(`drain worker exited early with ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Forks the workers, runs the drain of `n` jobs, and returns the time it took (ms). */
export async function drainWithWorkers(
  role: string,
  args: object,
  workers: number,
  n: number,
): Promise<number> {
  const children = Array.from({ length: workers }, () =>
    fork(CHILD, [role, JSON.stringify(args)], {
      execArgv: ['--no-warnings', '--expose-gc'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  try {
    await Promise.all(children.map((c) => nextMessage(c, (m) => 'ready' in m)));
    const counts = children.map(() => 0);
    let reached = () => {};
    const all = new Promise<void>((r) => (reached = r));
    children.forEach((c, i) =>
      c.on('message', (m: FromChild) => {
        if (!('handled' in m)) return;
        counts[i] = m.handled;
        if (counts.reduce((a, b) => a + b, 0) >= n) reached();
      }),
    );
    const t = performance.now();
    for (const c of children) c.send('go' satisfies ToChild);
    await all;
    const stopped = children.map((c) => nextMessage(c, (m) => 'stopped' in m));
    for (const c of children) c.send('stop' satisfies ToChild);
    await Promise.all(stopped);
    return performance.now() - t;
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((r) => {
            if (c.exitCode !== null || c.signalCode !== null) return r();
            c.once('exit', () => r());
            c.kill('SIGKILL');
          }),
      ),
    );
  }
}

/**
 * A drain worker's side: `start(handled)` begins work, calling `handled()` once per job run;
 * `stop()` writes what is left and stops. Reports its count every REPORT_MS until stopped.
 */
export function serveDrainWorker(
  start: (handled: (count?: number) => void) => Promise<void> | void,
  stop: () => Promise<void>,
): void {
  let handled = 0;
  let timer: ReturnType<typeof setInterval> | null = null;
  process.on('message', (msg: ToChild) => {
    if (msg === 'go') {
      timer = setInterval(() => process.send!({ handled } satisfies FromChild), REPORT_MS);
      void Promise.resolve(start((k = 1) => (handled += k)));
      return;
    }
    if (timer) clearInterval(timer);
    process.send!({ handled } satisfies FromChild);
    void stop().then(() => process.send!({ stopped: true } satisfies FromChild));
  });
  process.send!({ ready: true } satisfies FromChild);
}
