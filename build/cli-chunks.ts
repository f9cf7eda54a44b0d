/**
 * The CLI build's chunk layout: what `enqueue` and `run` load (the CLI's queue context and the
 * engine under it, and those two commands) in one chunk, `engine`, rather than the twenty small
 * chunks Rolldown cuts it into by who shares what. Node's ES module loader resolves, stats and
 * reads each chunk on its own (and looks for a package.json beside it), so each costs a start.
 *
 * Only modules reached by static imports from those roots go in, and none the entry (main.ts)
 * reaches: `--version` and `--help` still load main.cjs alone, and what the engine imports
 * lazily (zod and the payload schemas, the waiting note's views) stays in chunks of its own.
 */
import path from 'node:path';
import type { Plugin } from 'vite';

const ROOTS = ['electron/cli/context.ts', 'electron/cli/commands/enqueue.ts', 'electron/cli/commands/run.ts'];

export interface EngineChunk {
  plugin: Plugin;
  /** the `codeSplitting.groups` entry that gathers the modules the plugin found */
  group: { name: string; test: (id: string) => boolean; includeDependenciesRecursively: false };
}

export function engineChunk(root: string, entry: string): EngineChunk {
  const members = new Set<string>();
  return {
    plugin: {
      name: 'semaforo:engine-chunk',
      buildEnd() {
        const reach = (from: string[]): Set<string> => {
          const seen = new Set<string>();
          const todo = [...from];
          for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
            if (seen.has(id)) continue;
            seen.add(id);
            todo.push(...(this.getModuleInfo(id)?.importedIds ?? []));
          }
          return seen;
        };
        const fromEntry = reach([entry]);
        for (const id of reach(ROOTS.map((r) => path.join(root, r)))) if (!fromEntry.has(id)) members.add(id);
        if (members.size === 0) this.error(`none of ${ROOTS.join(', ')} was found for the engine chunk`);
      },
    },
    group: { name: 'engine', test: (id) => members.has(id), includeDependenciesRecursively: false },
  };
}
