/** LazyAbort (electron/core/dispatch/lazy-abort.ts): a task's cancellation, its signal made on demand. */
import { describe, expect, it } from 'vitest';
import { LazyAbort } from '../../electron/core/dispatch/lazy-abort.ts';

describe('LazyAbort', () => {
  it('gives a live signal that hears a later abort, with its reason', () => {
    const a = new LazyAbort();
    const signal = a.signal;
    expect(a.signal).toBe(signal); // one signal, however often asked
    let heard: unknown = null;
    signal.addEventListener('abort', () => (heard = signal.reason));
    expect(signal.aborted).toBe(false);
    const why = new Error('timed out');
    a.abort(why);
    expect(heard).toBe(why);
    expect(a.aborted).toBe(true);
    expect(a.reason).toBe(why);
  });

  it('aborted before anyone asked: the signal is born aborted with the same reason', () => {
    const a = new LazyAbort();
    const why = new Error('cancelled');
    a.abort(why);
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toBe(why);
  });

  it('keeps the first reason, as AbortController does', () => {
    const a = new LazyAbort();
    const first = new Error('first');
    a.abort(first);
    a.abort(new Error('second'));
    expect(a.reason).toBe(first);
    expect(a.signal.reason).toBe(first);
    const b = new LazyAbort();
    void b.signal;
    b.abort(first);
    b.abort(new Error('second'));
    expect(b.signal.reason).toBe(first);
  });

  it('has no reason and is not aborted until aborted', () => {
    const a = new LazyAbort();
    expect(a.aborted).toBe(false);
    expect(a.reason).toBeUndefined();
  });
});
