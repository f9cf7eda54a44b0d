/**
 * A throw-away redis-server for the BullMQ peer: random loopback port, no persistence, killed at
 * the end of the run. BullMQ needs a Redis client library too; it is loaded through require so
 * this file type-checks and runs (printing "skipped") where ioredis is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

/** redis-server on PATH (Debian's package puts it in /usr/bin), or null. */
export function findRedisServer(): string | null {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    const file = path.join(dir, 'redis-server');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** The part of an ioredis client the harness uses (BullMQ takes the instance as its connection). */
export interface RedisClient {
  connect(): Promise<void>;
  duplicate(): RedisClient;
  flushall(): Promise<unknown>;
  quit(): Promise<unknown>;
}
type RedisConstructor = new (options: {
  host: string;
  port: number;
  maxRetriesPerRequest: null;
}) => RedisClient;

/** The ioredis constructor, or why BullMQ cannot run here. */
export function loadIORedis(): RedisConstructor | string {
  try {
    const mod = createRequire(import.meta.url)('ioredis') as {
      default?: RedisConstructor;
    } & RedisConstructor;
    return mod.default ?? mod;
  } catch {
    return 'the ioredis package is not installed';
  }
}

export function connectRedis(port: number): RedisClient {
  const IORedis = loadIORedis();
  if (typeof IORedis === 'string') throw new Error(IORedis);
  return new IORedis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
}

/** Why BullMQ is skipped on this machine, or null when it can run. */
export function bullmqUnavailable(): string | null {
  if (!findRedisServer()) return 'no redis-server';
  const lib = loadIORedis();
  return typeof lib === 'string' ? lib : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) throw new Error('no redis-server');
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    port,
    stop: async () => {
      process.off('exit', kill);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
