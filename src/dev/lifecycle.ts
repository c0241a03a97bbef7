/**
 * The lifecycle of a running `hooktap dev` (and of `startReceiver`): its
 * parts start one after another onto an `AsyncDisposableStack`; a part that
 * fails to start unwinds the ones already started, in reverse order, and the
 * running whole is unwound once, however often it is asked to stop.
 * @module
 */

/** Parts started by {@linkcode compose}: `stop()` (or `await using`) unwinds them once, last started first. */
export interface Running<T> extends AsyncDisposable {
  /** What the build returned. */
  readonly value: T;
  /** Unwinds every part, last started first; later calls wait for the first. */
  stop(): Promise<void>;
}

/**
 * Runs `build`, which starts parts onto `stack` (`stack.use(part)`, `stack.defer(stop)`) in order.
 * When `build` throws, the parts started so far are unwound in reverse order and its error is rethrown
 * (a part that fails to stop then does not hide why the start failed).
 */
export async function compose<T>(build: (stack: AsyncDisposableStack) => Promise<T>): Promise<Running<T>> {
  const stack = new AsyncDisposableStack();
  let value: T;
  try {
    value = await build(stack);
  } catch (error) {
    await stack.disposeAsync().catch(() => {});
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = () => stopping ??= stack.disposeAsync();
  return { value, stop, [Symbol.asyncDispose]: stop };
}

/**
 * Resolves when `signal` aborts (at once when it already has) or `finished` resolves; rejects when
 * `finished` rejects (the listener failed on its own).
 */
export function stopRequested(signal: AbortSignal, finished: Promise<unknown>): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const aborted = () => resolve();
    signal.addEventListener("abort", aborted, { once: true });
    finished.then(() => resolve(), reject).finally(() => signal.removeEventListener("abort", aborted));
  });
}
