/** why-waiting's named-resource reason: the resource, its use and who holds it. */
import { describe, expect, it } from 'vitest';
import type { ResourceInfo, Task } from '../../shared/domain.ts';
import { resourceShort } from '../../shared/resource-wait.ts';
import { parseUsesText } from '../../shared/resources.ts';

const u = (text: string) => parseUsesText(text) as { resource: string; weight: number }[];

describe('why a task waits for a resource', () => {
  const info = (over: Partial<ResourceInfo>): ResourceInfo => ({
    name: 'main-db',
    capacity: 1,
    held: 0,
    holders: [],
    waiters: [],
    waiting: 1,
    reservedFor: [],
    ...over,
  });
  const t = { id: 50, uses: u('main-db') } as Pick<Task, 'id' | 'uses'> as Task;
  const why = (r: ResourceInfo[]) => resourceShort(t, r)?.message ?? null;

  it('names the resource, its use and its holders', () => {
    expect(why([info({ held: 1, holders: [{ taskId: 42, weight: 1 }] })])).toBe(
      'waiting for main-db: 1 of 1 held by task 42',
    );
    expect(why([])).toBe(
      'waiting for main-db: no such resource (semaforo resource set main-db --capacity N)',
    );
    expect(why([info({ capacity: 2, held: 1, reservedFor: [44] })])).toBe(
      'waiting for main-db: 1 of 2 held, the rest kept for task 44, which waited longer',
    );
    expect(why([info({ capacity: 2, held: 1, reservedFor: [50] })])).toBeNull();
  });
});
