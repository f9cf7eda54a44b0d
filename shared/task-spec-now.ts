/**
 * A task spec parsed synchronously, for code that has the schemas loaded anyway (tests, the
 * benchmarks' tight loops). The faces use task-spec-quick.ts's `parseTaskSpec`, which loads
 * the schemas only for a spec its quick check passes on.
 */
import { parseInput, taskSpecSchema, type ParsedTaskSpec } from './schemas.ts';
import { quickTaskSpec } from './task-spec-quick.ts';

/** Parses a task spec, or throws the schema's ValidationError (paths under `prefix`). */
export function parseTaskSpecNow(input: unknown, prefix = ''): ParsedTaskSpec {
  return quickTaskSpec(input) ?? parseInput(taskSpecSchema, input, prefix);
}
