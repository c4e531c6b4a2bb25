// @module `onShutdown(logger, closers, { deadlineMs, exit })`: SIGTERM/SIGINT/uncaught → closers in order, exit 0, or 1 when a closer fails or the deadline passes; `exitOnStartupError`
import type { Logger } from './logger.js';

export type Closer = () => Promise<unknown> | unknown;

export interface ShutdownOptions {
  deadlineMs?: number;
  /** For tests: what to do instead of exiting. */
  exit?: (code: number) => void;
}

/**
 * On SIGTERM or SIGINT (or an uncaught error): run the closers in order
 * (stop accepting first, connections last), exit 0; exit 1 if they fail or
 * the deadline passes. A process in an unknown state is not kept alive.
 */
export function onShutdown(logger: Logger, closers: Closer[], { deadlineMs = 10_000, exit = (c) => process.exit(c) }: ShutdownOptions = {}) {
  let stopping = false;
  const stop = async (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline passed');
      exit(1);
    }, deadlineMs);
    timer.unref();
    try {
      for (const close of closers) await close();
      clearTimeout(timer);
      logger.info('stopped');
      exit(code);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    void stop('uncaughtException', 1);
  });
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    void stop('unhandledRejection', 1);
  });
  return stop;
}

/** Logs a start-up failure (a ConfigError lists every bad variable) and exits 1. */
export function exitOnStartupError(logger: Logger | undefined, err: unknown): never {
  if (logger) logger.fatal({ err }, 'failed to start');
  else console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
