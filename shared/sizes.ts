/** Byte sizes as people write them (`1g`, `512m`, `800k`, `2GiB`) and as they are shown. */

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `1g` → 1073741824 (powers of 1024), or null when it is not a size. */
export function parseBytes(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return null;
  const n = Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (n >= size) return `${Math.round((n / size) * 10) / 10} ${unit}`;
  return `${n} B`;
}
