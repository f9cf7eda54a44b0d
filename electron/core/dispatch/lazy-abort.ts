/**
 * A task's cancellation, with the AbortController made only when its handler asks for the
 * signal. A controller is an EventTarget with a Map of its own, about 400 bytes that a drain
 * at full speed promoted to the old heap for every task; a handler that never looks at the
 * signal (a no-op, a quick function) now costs none of it. Aborted before anyone asked, the
 * signal is born aborted, with the same reason.
 */
export class LazyAbort {
  private controller: AbortController | null = null;
  private why: Error | undefined = undefined;
  private done = false;

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.done;
  }

  /** Why it was aborted (undefined while it was not). */
  get reason(): Error | undefined {
    return this.why;
  }

  /** Aborts once; later calls keep the first reason, as AbortController does. */
  abort(reason: Error): void {
    if (this.done) return;
    this.done = true;
    this.why = reason;
    this.controller?.abort(reason);
  }
}
