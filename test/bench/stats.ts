/** Small statistics helpers for the benchmark harness. */

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile of unsorted values, q in [0, 1]. */
export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[rank]!;
}

export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  return a / b;
}

/** A figure for a table: 3 significant digits, thousands separated. */
export function fmt(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

export function fmtRatio(n: number | null): string {
  return n === null || !Number.isFinite(n) ? '–' : `${n.toFixed(2)}x`;
}

/** High-resolution wall-clock milliseconds, comparable between processes on one machine. */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}
