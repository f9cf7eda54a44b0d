/**
 * Sleeping this thread for a fraction of a millisecond without spinning the CPU: a futex wait
 * (Atomics.wait) that nobody wakes. Timers cannot wait less than 1 ms, and a busy loop takes the
 * CPU from the very process being waited for on a busy machine.
 */
const cell = new Int32Array(new SharedArrayBuffer(4));
/** null until tried; false where this thread may not block (a browser-like main thread throws) */
let allowed: boolean | null = null;

/** Sleeps `ms` (fractions allowed); false, at once, where this thread may not block. */
export function nap(ms: number): boolean {
  if (allowed === false) return false;
  try {
    Atomics.wait(cell, 0, 0, ms);
    allowed = true;
  } catch {
    allowed = false;
  }
  return allowed;
}
