import { describe, expect, it } from 'vitest';
import { idleReading, STUCK_MS } from '../../electron/core/machine/idle-reading.ts';

describe('the idle time the tray app reads', () => {
  it('is no reading once it has said nothing but 0 for ten minutes, and a reading again after', () => {
    let now = 0;
    let idle = 0;
    const read = idleReading(
      () => idle,
      () => now,
    );
    expect(read()).toBe(0); // at first a 0 is believed: the user may be typing
    now = STUCK_MS - 1;
    expect(read()).toBe(0);
    now = STUCK_MS;
    expect(read()).toBeNull(); // stuck at 0 (Electron on some Wayland desktops)
    idle = 4000;
    expect(read()).toBe(4000);
    idle = 0;
    now = 5 * STUCK_MS;
    expect(read()).toBe(0); // once it has moved, a 0 is the user at work
  });

  it('is believed from the start when it moves', () => {
    let now = 0;
    const values = [2000, 0, 0];
    const read = idleReading(
      () => values.shift() ?? 0,
      () => now,
    );
    expect(read()).toBe(2000);
    now = 2 * STUCK_MS;
    expect([read(), read()]).toEqual([0, 0]);
  });
});
