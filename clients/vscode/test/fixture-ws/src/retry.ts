// Retrying flaky network calls with exponential backoff.

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
}

/** Call `fn` until it succeeds, waiting twice as long after each failure. */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  let delay = options.baseDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= options.attempts) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}
