/**
 * Calls `check` every `intervalMs` until it returns a value other than undefined (an error
 * thrown by it counts as not yet); past `timeoutMs` throws `timedOut(the last such error)`.
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  opts: { timeoutMs: number; intervalMs: number; timedOut: (lastError: unknown) => Error },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw opts.timedOut(last);
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs));
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  return pollUntil(check, { timeoutMs, intervalMs: 100, timedOut: (last) => new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`) });
}
