/** Schemas of named resources: a resource's name and capacity, and what a task uses of them. */
import { z } from 'zod';
import type { ResourceUse } from '../domain.ts';
import { LIMITS } from '../limits.ts';
import {
  parseUsesText,
  RESOURCE_NAME_RE,
  RESOURCE_NAME_RULE,
  sortedUses,
  usesProblem,
} from '../resources.ts';
import { intIn } from './fields.ts';

/** A named resource's name (`main-db`): no `:` or `,`, which `--uses cpu:2,nas` separates with. */
export const resourceNameSchema = z
  .string({ error: 'must be a string' })
  .regex(RESOURCE_NAME_RE, { error: RESOURCE_NAME_RULE });

export const resourceCapacitySchema = intIn(LIMITS.resourceCapacity.min, LIMITS.resourceCapacity.max);

/**
 * What a task uses while it runs: the text `--uses` takes (`"cpu:2,nas"`), or the task's own
 * JSON shape (`[{"resource":"cpu","weight":2}]`, weight 1 if left out). Sorted by name.
 */
export const usesSchema = z.unknown().transform((v, ctx): ResourceUse[] => {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (typeof v === 'string') {
    const uses = parseUsesText(v);
    return Array.isArray(uses) ? uses : fail(uses.problem);
  }
  if (!Array.isArray(v)) return fail('must be text such as "cpu:2,nas" or a list of {resource, weight}');
  const uses: ResourceUse[] = [];
  for (const item of v as unknown[]) {
    const { resource, weight = 1 } = (typeof item === 'object' && item !== null ? item : {}) as {
      resource?: unknown;
      weight?: unknown;
    };
    if (typeof resource !== 'string' || typeof weight !== 'number')
      return fail('each item must be {"resource": NAME, "weight": N} (weight 1 if left out)');
    uses.push({ resource, weight });
  }
  const problem = usesProblem(uses);
  return problem === null ? sortedUses(uses) : fail(problem);
});
