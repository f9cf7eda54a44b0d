import { describe, expect, it } from 'vitest';
import { firstAffectedPage } from '../../renderer/state/touched-pages.ts';

const rows = (from: number, to: number) => {
  const out: { id: number }[] = [];
  for (let id = from; id >= to; id--) out.push({ id });
  return out;
};

describe('which Tasks pages a change makes stale', () => {
  // Newest first: page 0 holds ids 1000..801, page 1 800..601 (both in view), page 2 600..401.
  const loaded = new Map([
    [0, rows(1000, 801)],
    [1, rows(800, 601)],
    [2, rows(600, 401)],
  ]);
  const base = { inView: [0, 1], loaded, idOrder: 'desc' as const, pageSize: 200 };

  it('refetches from the page of a touched task on, and nothing before it', () => {
    expect(firstAffectedPage({ ...base, touched: new Set([700]) })).toBe(1);
    expect(firstAffectedPage({ ...base, touched: new Set([700, 950]) })).toBe(0);
  });

  it('places unseen tasks by id when the list is in creation order', () => {
    expect(firstAffectedPage({ ...base, touched: new Set([1001]) })).toBe(0); // new, at the top
    expect(firstAffectedPage({ ...base, touched: new Set([12]) })).toBe(Infinity); // far below the view
    // Sorted by name, an unseen task could sit anywhere in view.
    expect(firstAffectedPage({ ...base, idOrder: null, touched: new Set([12]) })).toBe(0);
  });

  it('refetches everything in view when nobody knows what changed', () => {
    expect(firstAffectedPage({ ...base, touched: null })).toBe(0);
    expect(firstAffectedPage({ ...base, touched: new Set() })).toBe(0);
  });

  it('treats the end of a short list as where new rows of an ascending list land', () => {
    const short = new Map([[0, [{ id: 1 }, { id: 2 }]]]);
    const input = { inView: [0], loaded: short, idOrder: 'asc' as const, pageSize: 200 };
    expect(firstAffectedPage({ ...input, touched: new Set([3]) })).toBe(0);
  });
});
