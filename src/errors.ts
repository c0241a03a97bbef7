/**
 * Typed errors. Deep code throws these; `main.ts` alone turns them into a
 * message on stderr and an exit code.
 * @module
 */

/** Base class of every error hooktap reports to the user without a stack. */
export class HooktapError extends Error {
  /** Exit code `main.ts` uses for this error. */
  readonly exitCode: number;
  /** The user was already told (a prompt said "cancelled"): `main.ts` prints nothing more. */
  readonly reported: boolean;
  /**
   * Creates a HooktapError (exit code 1 unless told).
   * @param message what went wrong and the fix.
   * @param options exit code (default 1), cause, and whether the user was already told.
   */
  constructor(message: string, options: { exitCode?: number; cause?: unknown; reported?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = "HooktapError";
    this.exitCode = options.exitCode ?? 1;
    this.reported = options.reported ?? false;
  }
}

/** The config file is missing, cannot be loaded, or fails validation. */
export class ConfigError extends HooktapError {
  /** Every problem found, each naming its field path and the fix. */
  readonly issues: readonly string[];
  /**
   * Creates a ConfigError (exit code 78).
   * @param message the summary.
   * @param issues each problem, with its field path.
   * @param options the cause.
   */
  constructor(message: string, issues: readonly string[] = [], options: { cause?: unknown } = {}) {
    super(message, { exitCode: 78, ...options }); // EX_CONFIG
    this.name = "ConfigError";
    this.issues = issues;
  }
}

/** The command line itself is wrong (a bad flag value, a missing answer). */
export class UsageError extends HooktapError {
  /**
   * Creates a UsageError (exit code 2).
   * @param message what is wrong and the usage that works.
   */
  constructor(message: string) {
    super(message, { exitCode: 2 });
    this.name = "UsageError";
  }
}

/** The event store cannot be opened, locked, read or written. */
export class StoreError extends HooktapError {
  /**
   * Creates a StoreError (exit code 1).
   * @param message what went wrong and the fix.
   * @param options the cause.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { exitCode: 1, ...options });
    this.name = "StoreError";
  }
}

/** The receiver cannot listen (port in use, permission denied). */
export class ServeError extends HooktapError {
  /**
   * Creates a ServeError (exit code 1).
   * @param message what went wrong and the fix.
   * @param options the cause.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { exitCode: 1, ...options });
    this.name = "ServeError";
  }
}

/** Something the user asked for does not exist (an event id, an endpoint). */
export class NotFoundError extends HooktapError {
  /**
   * Creates a NotFoundError (exit code 1).
   * @param message what was not found.
   */
  constructor(message: string) {
    super(message, { exitCode: 1 });
    this.name = "NotFoundError";
  }
}

/** Short text of any thrown value, for messages. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A request hooktap sent (`replay`) got no answer: refused, DNS, timeout, TLS. */
export class NetworkError extends HooktapError {
  /**
   * Creates a NetworkError (exit code 1).
   * @param message what went wrong and the fix.
   * @param options the cause.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { exitCode: 1, ...options });
    this.name = "NetworkError";
  }
}
