/**
 * Named resources as people write them: a name (`main-db`), and what a task uses as text
 * (`cpu:2,nas`: weight 1 unless given). One parser for the CLI's `--uses`, the `--stdin` spec and
 * the HTTP/IPC spec (schemas.ts), one formatter for every face.
 */
import type { ResourceUse } from './domain.ts';
import { LIMITS } from './limits.ts';

/** No `:` or `,`: they separate the weight and the next resource in `cpu:2,nas`. */
export const RESOURCE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const RESOURCE_NAME_RULE = 'must be 1-64 letters, digits or . _ - and start with a letter or digit';

/** The uses in one order (by name), so equal uses compare and store equal. */
export function sortedUses(uses: readonly ResourceUse[]): ResourceUse[] {
  return [...uses].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

/** Why a list of uses is not valid, or null (each name valid and named once, weights in range). */
export function usesProblem(uses: readonly ResourceUse[]): string | null {
  if (uses.length > LIMITS.usesPerTask)
    return `names ${uses.length} resources; at most ${LIMITS.usesPerTask}`;
  const seen = new Set<string>();
  for (const u of uses) {
    if (!RESOURCE_NAME_RE.test(u.resource)) return `"${u.resource.slice(0, 70)}" ${RESOURCE_NAME_RULE}`;
    const { min, max } = LIMITS.resourceCapacity;
    if (!Number.isSafeInteger(u.weight) || u.weight < min || u.weight > max)
      return `the weight of ${u.resource} must be a whole number from ${min} to ${max}`;
    if (seen.has(u.resource)) return `names ${u.resource} twice`;
    seen.add(u.resource);
  }
  return null;
}

/** `cpu:2,nas` as uses, or the reason it is not one. An empty text is no uses. */
export function parseUsesText(text: string): ResourceUse[] | { problem: string } {
  const uses: ResourceUse[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^([^:]+)(?::(\d+))?$/.exec(item);
    if (!m) return { problem: `"${item.slice(0, 70)}" is not NAME or NAME:WEIGHT (e.g. cpu:2,nas)` };
    uses.push({ resource: m[1]!.trim(), weight: m[2] === undefined ? 1 : Number(m[2]) });
  }
  // An empty text is a slip (an unset variable in `--uses "$RES"`), not a way to say "none".
  if (uses.length === 0) return { problem: 'names no resource (e.g. cpu:2,nas); leave it out for none' };
  const problem = usesProblem(uses);
  return problem === null ? sortedUses(uses) : { problem };
}

/** Uses as the text they are given in: `cpu:2,nas`. */
export function formatUses(uses: readonly ResourceUse[]): string {
  return uses.map((u) => (u.weight === 1 ? u.resource : `${u.resource}:${u.weight}`)).join(',');
}
