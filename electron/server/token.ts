/**
 * The dashboard's access token: random, one per data folder, stored owner-only so only this user
 * (and what they run) can read it, and stable across restarts so a bookmarked URL keeps working.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { assertTrusted } from '../core/trust/file-trust.ts';

export const TOKEN_FILE = 'serve-token';

export function loadOrCreateToken(dataDir: string): string {
  const file = path.join(dataDir, TOKEN_FILE);
  assertTrusted(file, 'dashboard token'); // a planted token would let its planter in
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(existing)) {
      fs.chmodSync(file, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = crypto.randomBytes(32).toString('hex');
  // Write to a temp name then rename, so a concurrent reader never sees half a token.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return token;
}
