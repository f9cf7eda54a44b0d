import type { RateLimit } from '../../../shared/domain.ts';

/**
 * Room left in a sliding-window rate limit: at most `limit` starts in any `periodMs` window.
 * `used` starts fall inside (now - periodMs, now], the oldest of them at `oldest`.
 * When there is no room, `freeAt` is when the oldest start leaves the window.
 */
export function rateRoom(
  rate: RateLimit,
  used: number,
  oldest: number | null,
  now: number,
): { room: number; freeAt: number | null } {
  const room = rate.limit - used;
  if (room > 0) return { room, freeAt: null };
  return { room: 0, freeAt: oldest === null ? now : oldest + rate.periodMs };
}
