/**
 * Shutdown bookkeeping shared by both stacks: counts requests inside the
 * handler, turns new ones away once stopping, and when the wait runs out
 * cuts off bodies still uploading so those requests get a retryable 503.
 * @module
 */
import type { Handler } from "../receiver/handler.ts";

/** Body of the 503 a request gets when it arrives while hooktap is stopping. */
export const STOPPING_MESSAGE = "hooktap is shutting down; nothing was stored. Retry in a moment.";

/** The drain around one handler. */
export interface Drain {
  readonly handler: Handler;
  /** Give it to the handler as `info.cutOff`: aborted when the wait runs out. */
  readonly cutOff: AbortSignal;
  /** Requests inside the handler now. */
  readonly inFlight: number;
  /**
   * Stops: waits up to `timeoutMs` for requests in the handler, then cuts off
   * bodies still arriving and waits up to `answerMs` for their 503s. Resolves
   * to the number of requests cut off.
   */
  stop(timeoutMs: number, answerMs?: number): Promise<number>;
}

/** Wraps `inner` with shutdown bookkeeping. */
export function createDrain(inner: Handler): Drain {
  let inFlight = 0;
  let stopping = false;
  let idle: (() => void) | undefined;
  const cutOff = new AbortController();
  const waitIdle = async (ms: number) => {
    if (inFlight === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await new Promise<boolean>((resolve) => {
      idle = () => resolve(true);
      timer = setTimeout(() => resolve(false), ms);
    });
    clearTimeout(timer);
    return done;
  };
  const leave = () => {
    inFlight--;
    if (inFlight === 0) idle?.();
  };
  return {
    cutOff: cutOff.signal,
    get inFlight() {
      return inFlight;
    },
    handler(request, info) {
      if (stopping) {
        return Promise.resolve(
          new Response(STOPPING_MESSAGE, {
            status: 503,
            headers: { "content-type": "text/plain; charset=utf-8", connection: "close", "retry-after": "5" },
          }),
        );
      }
      inFlight++;
      // No async frame of its own: the handler's promise, counted out when it settles either way.
      let answer: Promise<Response>;
      try {
        answer = inner(request, info);
      } catch (error) {
        leave();
        return Promise.reject(error);
      }
      answer.then(leave, leave);
      return answer;
    },
    async stop(timeoutMs, answerMs = 1000) {
      stopping = true;
      if (await waitIdle(timeoutMs)) return 0;
      const left = inFlight;
      cutOff.abort();
      await waitIdle(answerMs);
      return left;
    },
  };
}
