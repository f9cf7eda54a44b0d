export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes warnings and errors to stderr; info is dropped unless asked for. */
export function stderrLogger(verbose = false): Logger {
  return {
    info: (m) => {
      if (verbose) process.stderr.write(`semaforo: ${m}\n`);
    },
    warn: (m) => process.stderr.write(`semaforo: warning: ${m}\n`),
    error: (m) => process.stderr.write(`semaforo: error: ${m}\n`),
  };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** The same logger with its warnings demoted to info (shown only when asked for). */
export function warningsAsInfo(l: Logger): Logger {
  return { info: (m) => l.info(m), warn: (m) => l.info(m), error: (m) => l.error(m) };
}
