/**
 * What a PostgreSQL failure means to the user, in one line naming the queue's location (without
 * its password). Server conditions come as SQLSTATE codes; a connection that cannot be made comes
 * as a Node errno or in pg's own words. A server error of any kind (a constraint the store relies
 * on, bad SQL) becomes a StorageError with the server's words; the store's own errors pass.
 */
import pg from 'pg';
import { StorageError, type StorageCondition } from '../../errors.ts';

/** The condition and the line to show for a code (SQLSTATE or errno). */
export function classifyPgError(
  code: string,
  location: string,
  original: string,
): { condition: StorageCondition; message: string } {
  const at = `the queue database ${location}`;
  if (code === '53100')
    return { condition: 'full', message: `cannot write to ${at}: the server's disk is full` };
  if (code === '25006')
    return { condition: 'read-only', message: `cannot write to ${at}: the server is read-only (a standby?)` };
  if (code === 'XX001' || code === 'XX002')
    return { condition: 'damaged', message: `${at} is damaged: ${original}` };
  if (
    code === '3D000' ||
    code === '28000' ||
    code === '28P01' ||
    (code === '42501' && /permission denied for (database|schema)/.test(original))
  )
    return { condition: 'cannot-open', message: `cannot open ${at}: ${original}` };
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code))
    return { condition: 'cannot-open', message: `cannot reach ${at}: ${original}` };
  if (
    code.startsWith('08') ||
    code.startsWith('57P') ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT'
  )
    return { condition: 'io', message: `lost the connection to ${at}: ${original}` };
  return { condition: 'io', message: `${at} failed: ${original}` };
}

/** pg's own words for a connection that failed or went away (it gives them no code). */
const CONNECTION_WORDS =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Connection closed/i;

/**
 * A failure of the database or of the connection to it, as a StorageError; anything else (the
 * store's own NotFoundError, ConflictError, a validation error) is passed on as it is.
 */
export function toPgStorageError(e: unknown, location: string): unknown {
  if (e instanceof StorageError || !(e instanceof Error)) return e;
  const code = 'code' in e && typeof e.code === 'string' ? e.code : null;
  const fromServer = e instanceof pg.DatabaseError;
  const fromSocket = code !== null && /^E[A-Z]+$/.test(code);
  const words = !fromServer && !fromSocket && CONNECTION_WORDS.test(e.message);
  if (!fromServer && !fromSocket && !words) return e;
  const c = code ?? (/timeout/i.test(e.message) ? 'ETIMEDOUT' : 'ECONNRESET');
  const { condition, message } = classifyPgError(c, location, e.message || c);
  const err = new StorageError(message, c, condition, location);
  err.cause = e;
  return err;
}
