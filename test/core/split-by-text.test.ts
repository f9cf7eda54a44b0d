import { describe, expect, it } from 'vitest';
import { splitByText } from '../../electron/core/store/sqlite/split-by-text.ts';

const len = (s: string) => s.length;

describe('splitByText', () => {
  it('gives the list itself when it fits, and no part for no items', () => {
    const items = ['ab', 'cd'];
    expect(splitByText(items, len, 4)[0]).toBe(items);
    expect(splitByText(items, len, 4)).toHaveLength(1);
    expect(splitByText([], len, 4)).toEqual([]);
  });

  it('starts a part where the next item would pass the text bound, in order, losing nothing', () => {
    expect(splitByText(['aa', 'bb', 'c', 'dddd', 'e'], len, 4)).toEqual([
      ['aa', 'bb'],
      ['c'],
      ['dddd'],
      ['e'],
    ]);
  });

  it('keeps an item larger than the bound alone rather than dropping it', () => {
    expect(splitByText(['a', 'xxxxxxxx', 'b'], len, 4)).toEqual([['a'], ['xxxxxxxx'], ['b']]);
  });

  it('bounds the count too', () => {
    expect(splitByText(['a', 'b', 'c', 'd', 'e'], len, 100, 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });
});
