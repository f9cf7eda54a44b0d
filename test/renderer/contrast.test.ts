/**
 * Text contrast of the theme's colour pairs, light and dark, computed from renderer/styles/
 * base.css as shipped (WCAG 2 relative luminance): at least 4.5 for every pair text is set in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CSS = fs.readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../renderer/styles/base.css'),
  'utf8',
);

function varsOf(block: string): Record<string, string> {
  return Object.fromEntries(
    [...block.matchAll(/(--[a-z0-9-]+):\s*(#[0-9a-f]{6})\b/gi)].map((m) => [m[1]!, m[2]!]),
  );
}

const light = varsOf(/:root\s*\{([^}]*)\}/.exec(CSS)![1]!);
const dark = {
  ...light,
  ...varsOf(/prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{([^}]*)\}/.exec(CSS)![1]!),
};

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

// [text, background]: '#ffffff' is the white of badges and filled buttons.
const PAIRS: [string, string][] = [
  ['#ffffff', '--red-fill'], // the rail's failed count
  ['--primary-fg', '--primary'], // primary buttons
  ['--amber', '--selected'], // a waiting or running status on a selected row
  ['--red', '--selected'],
  ['--green', '--selected'],
  ['--muted', '--selected'],
  ['--link', '--surface'],
  ['--link', '--bg'],
  ['--amber', '--surface'],
  ['--red', '--surface'],
  ['--green', '--surface'],
  ['--muted', '--surface'],
  ['--muted', '--surface-2'],
  ['--fg', '--bg'],
];

describe('theme contrast', () => {
  for (const [name, theme] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    it(`is at least 4.5 for text on its backgrounds (${name})`, () => {
      const color = (v: string) => (v.startsWith('#') ? v : theme[v]!);
      const low = PAIRS.map(([fg, bg]) => ({
        pair: `${fg} on ${bg}`,
        ratio: contrast(color(fg), color(bg)),
      })).filter((p) => p.ratio < 4.5);
      expect(low).toEqual([]);
    });
  }
});
