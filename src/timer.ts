/**
 * A sleep that can be cut short: the back-off loops of the listeners (dev's
 * receiver, the hub, the control socket) wait with it and are woken when
 * they are stopped.
 * @module
 */

/** `sleep(ms)` resolves after `ms`, or at once when `wake()` is called (for the sleep under way). */
export function wakeableSleep(): { sleep(ms: number): Promise<void>; wake(): void } {
  let wake = () => {};
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
    wake: () => wake(),
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (already aborted: at once); never rejects. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
