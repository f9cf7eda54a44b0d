import type { Handler } from './registry.ts';
import { defineHandler } from './registry.ts';
import { sleepHandler } from './sleep.ts';

/** The kinds every engine knows, whatever face opens it. */
export function builtinHandlers(): Handler<unknown>[] {
  return [defineHandler(sleepHandler)];
}
