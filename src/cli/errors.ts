/** The two ways a CLI invocation fails; anything else is an unexpected failure (exit 1). */

/** Wrong invocation (unknown command or flag, missing argument): exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command could not do what was asked (invalid value, unknown id): exit code 1. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}
