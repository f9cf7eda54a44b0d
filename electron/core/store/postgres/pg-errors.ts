/**
 * What a PostgreSQL failure means to the user, in one line naming the queue's location (without
 * its password). Server conditions come as SQLSTATE codes; a connection that cannot be made comes
 * as a Node errno. A programming error (a constraint the store relies on, bad SQL) is still a
 * StorageError, with the server's words, so every error of the store has one shape.
 */
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

export function toPgStorageError(e: unknown, location: string): Error {
  if (e instanceof StorageError) return e;
  if (!(e instanceof Error)) return new StorageError(`${location}: ${String(e)}`, 'unknown', 'io', location);
  if (e.name === 'SchemaTooNewError') return e;
  const code = 'code' in e && typeof e.code === 'string' ? e.code : timeoutCode(e.message);
  const { condition, message } = classifyPgError(code, location, e.message || code);
  const err = new StorageError(message, code, condition, location);
  err.cause = e;
  return err;
}

/** pg reports a connect timeout and an ended connection by message only. */
function timeoutCode(message: string): string {
  if (/timeout/i.test(message)) return 'ETIMEDOUT';
  if (/terminated|ended|not queryable|Connection closed/i.test(message)) return 'ECONNRESET';
  return 'unknown';
}
