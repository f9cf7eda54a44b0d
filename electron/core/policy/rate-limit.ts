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

/**
 * The finest spacing applied: faster rates start in small groups every SPACING_MS, since one
 * start per claim would cap a group at the claim's own pace (about 200 a second on 2 cores).
 */
export const SPACING_MS = 100;

/**
 * A rate of `perPeriod` starts per `periodMs` (fractional for a learned one) as the claim applies
 * it: evenly spaced, one start every periodMs / perPeriod (or the few due in each SPACING_MS), so a
 * request that leaves late after its claim cannot land in the vendor's same second as the rate's
 * next ones. With a `burst` of b, up to b start at once and the next b wait for b intervals. The
 * claim checks the plain window as well (`rateCap`), so neither rounding nor a burst ever lets a
 * period hold more than the rate. A burst of the whole limit is the plain window.
 */
export function spacedRate(perPeriod: number, periodMs: number, burst: number | null): RateLimit {
  const fine = Math.ceil((perPeriod * SPACING_MS) / periodMs);
  const b = Math.max(1, Math.min(Math.max(burst ?? 1, fine), Math.floor(perPeriod)));
  return { limit: b, periodMs: Math.ceil((b * periodMs) / perPeriod) };
}

/**
 * The burst a group update writes: the one given, else none (evenly spaced) when it sets a new
 * rate, else unchanged (undefined).
 */
export function burstAfter(update: { rate?: unknown; burst?: number | null }): number | null | undefined {
  if (update.burst !== undefined) return update.burst;
  return update.rate !== undefined ? null : undefined;
}
