/**
 * Builds dist/renderer for the e2e tests when it is older than its sources, under a lock so test
 * files running in parallel never build into the same folder at once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputOf } from '../process-output.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_INDEX = path.join(ROOT, 'dist/renderer/index.html');
const BUILD_LOCK = path.join(ROOT, 'dist/.renderer-build.lock');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  const built = fs.existsSync(DIST_INDEX) ? fs.statSync(DIST_INDEX).mtimeMs : 0;
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'renderer')),
    newestMtime(path.join(ROOT, 'shared')),
    fs.statSync(path.join(ROOT, 'vite.config.ts')).mtimeMs, // how it is built (precompressed copies)
  );
  return built > sources;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in the build lock; 0 while its owner has not written it yet (or the lock just went). */
function lockOwner(): number {
  try {
    return Number(fs.readFileSync(path.join(BUILD_LOCK, 'pid'), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/**
 * Takes the build lock (a directory: mkdir is atomic), so test files running in parallel never
 * `vite build` into the same dist/renderer at once. A lock left by a process that died is taken over.
 */
async function withBuildLock<T>(run: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(BUILD_LOCK, { recursive: false });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = lockOwner();
      if (owner > 0 && !alive(owner)) fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 100)); // another file's build: wait for it
    }
  }
  try {
    fs.writeFileSync(path.join(BUILD_LOCK, 'pid'), String(process.pid));
    return await run();
  } finally {
    fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds dist/renderer when it is missing or older than the renderer's (or shared/) sources. Test
 * files call this in parallel: one builds, the others wait for it and then find the build fresh.
 */
export async function ensureRendererBuilt(): Promise<'fresh' | 'built'> {
  if (isFresh()) return 'fresh';
  return withBuildLock(async () => {
    if (isFresh()) return 'fresh';
    const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
    const r = await outputOf(
      // NODE_ENV=production as `npm run build` has it: vitest's NODE_ENV=test would make vite ship
      // React's development build, three times the size of what users get.
      spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
        cwd: ROOT,
        stdio: 'pipe',
        env: { ...process.env, NODE_ENV: 'production' },
      }),
    );
    if (r.code !== 0) throw new Error(`vite build failed (${r.code}): ${r.stderr || r.stdout}`);
    return 'built';
  });
}
