import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../electron/core/sha256.ts';

const node = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

describe('sha256Hex', () => {
  it('matches node:crypto on the empty text, block edges, UTF-8 and a machine tag input', () => {
    const texts = [
      '',
      'abc',
      'x'.repeat(55),
      'x'.repeat(56),
      'x'.repeat(63),
      'x'.repeat(64),
      'x'.repeat(65),
      'y'.repeat(1000),
      'éß漢字🚦',
      '3f8a1c52-93b4-4b8e-a1a4-0c6f2d8e9b11/4026531836',
    ];
    for (const t of texts) expect(sha256Hex(t), JSON.stringify(t)).toBe(node(t));
  });

  it('matches node:crypto on random texts', () => {
    for (let i = 0; i < 200; i++) {
      const t = crypto.randomBytes(i).toString('latin1');
      expect(sha256Hex(t)).toBe(node(t));
    }
  });
});
