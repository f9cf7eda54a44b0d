/**
 * What the Group field says under it. Enqueueing into a group that does not exist creates it
 * with no limits, so a typo (`vendr` for `vendor`) would silently run unthrottled: the form says
 * so before it is submitted, and names the known group the text is closest to.
 */

export const GROUP_HINT = 'whose limits apply; default: default';

export interface GroupHint {
  text: string;
  /** true when the group would be created: shown as a warning, not a plain hint */
  isNew: boolean;
}

/** Edit distance, for a short name against a few dozen groups. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known group `typed` most likely meant (a case slip or up to 2 edits), if any. */
function closest(typed: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    const d = name.toLowerCase() === typed.toLowerCase() ? 0 : distance(typed, name);
    if (d <= 2 && (best === null || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

/** `known`: the queue's groups, or undefined while they are not loaded (no verdict then). */
export function groupHint(typed: string, known: readonly string[] | undefined): GroupHint {
  const name = typed.trim();
  // Empty is the default group; "default" is what every task without a group joins.
  if (known === undefined || name === '' || name === 'default' || known.includes(name))
    return { text: GROUP_HINT, isNew: false };
  const near = closest(name, known);
  return {
    text: `new group, no limits: “${name}” does not exist yet${near ? `; did you mean “${near}”?` : ''}`,
    isNew: true,
  };
}
