/**
 * The user's idle time as the tray app reads it (Electron's powerMonitor), or null where it
 * cannot be had. On some Linux desktops (Wayland sessions among them) Electron answers 0 every
 * time; taken as a reading, that would keep a `--when-idle` gate closed for good. A user at the
 * machine lets it pass a second now and then, so an idle time that has never been above 0 for
 * STUCK_MS is taken as no reading (the gate then says so and stays open), until one is.
 */
export const STUCK_MS = 10 * 60_000;

export function idleReading(readIdleMs: () => number, now: () => number = Date.now): () => number | null {
  let firstAt: number | null = null;
  let seenAboveZero = false;
  return () => {
    const ms = readIdleMs();
    firstAt ??= now();
    if (ms > 0) seenAboveZero = true;
    return seenAboveZero || now() - firstAt < STUCK_MS ? ms : null;
  };
}
