/**
 * What every command shares: the global options, opening the engine on the right file, and
 * printing either JSON (`--json`) or human text.
 */
import type { Command } from 'commander';
import { createEngine, type Engine, type EngineOptions } from '../core/engine.ts';
import { stderrLogger } from '../core/logger.ts';
import path from 'node:path';
import { dataDir, defaultDbPath } from '../core/paths.ts';
import { checkDbFolder, isReader } from './db-folder.ts';
import type { CliIo } from './io.ts';
import { printable } from './printable.ts';

export interface GlobalOptions {
  db?: string;
  json?: boolean;
  verbose?: boolean;
}

export class CliContext {
  /** the process exit code once the command ends */
  exitCode = 0;
  private readonly io: CliIo;
  private readonly engines: Engine[] = [];

  constructor(io: CliIo) {
    this.io = io;
  }

  get ioHandle(): CliIo {
    return this.io;
  }

  globals(cmd: Command): GlobalOptions {
    return cmd.optsWithGlobals<GlobalOptions>();
  }

  dbPath(cmd: Command): string {
    return this.globals(cmd).db ?? defaultDbPath(this.io.env);
  }

  /**
   * Where this queue's local files go (the dashboard's token, adopt's crontab records): next to
   * a queue file; for a queue on a server (postgres://...), the data folder.
   */
  localFolder(cmd: Command): string {
    const db = this.dbPath(cmd);
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(db) ? dataDir(this.io.env) : path.dirname(path.resolve(db));
  }

  /** Opens the queue; closed when the command ends. */
  async engine(cmd: Command, options: Partial<EngineOptions> = {}): Promise<Engine> {
    const file = this.dbPath(cmd);
    // The default file's folder is missing only before the first use on this machine.
    const note = this.globals(cmd).db === undefined ? null : checkDbFolder(cmd, file);
    if (note) this.io.err(note);
    const engine = await createEngine({
      file,
      existingOnly: isReader(cmd),
      logger: stderrLogger(this.globals(cmd).verbose === true),
      ...options,
    });
    this.engines.push(engine);
    return engine;
  }

  /** Closes an engine opened with `engine()` before the command ends. */
  async discard(engine: Engine): Promise<void> {
    const i = this.engines.indexOf(engine);
    if (i >= 0) this.engines.splice(i, 1);
    await engine.close(0);
  }

  /** `--json`: the value as JSON; otherwise the human text. */
  print(cmd: Command, value: unknown, human: () => string): void {
    if (this.globals(cmd).json) this.io.out(`${JSON.stringify(value, null, 2)}\n`);
    else this.io.out(`${printable(human())}\n`);
  }

  async closeAll(deadlineMs = 0): Promise<void> {
    for (const e of this.engines.splice(0)) await e.close(deadlineMs);
  }
}
