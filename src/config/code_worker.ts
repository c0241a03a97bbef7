/**
 * A config's code in a worker of its own. The worker imports the config
 * file and hands back its default export as data, each function in it (a
 * custom `response` may be one) replaced by a mark; here each mark becomes a
 * proxy that posts the event to the worker and awaits its answer. A worker
 * kept for `hooktap dev` lives as long as that config generation is in use
 * (a reload imports the file in a new worker: every module it imports is read
 * anew, which one isolate's module cache would not do); every other command
 * ends it as soon as the data is out, and its proxies say so if called.
 * @module
 */
import { ResponseFunctionError, RUNS_IN_WORKER } from "./response.ts";
import type { CapturedEvent } from "../event/record.ts";
import { readReturnedResponse } from "./returned_response.ts";

/** What the worker answers a load. */
export type LoadAnswer =
  | { ok: true; hasDefault: boolean; value: unknown; functions: number }
  | { ok: false; clone?: boolean; error: string; message?: string };

/** Key of the marks that stand for what cannot cross to another thread. */
const MARK = "__hooktap_code_mark__";

/**
 * The worker's code: a string (a worker made from a module file would need that file beside every layout
 * hooktap ships in), which carries ./returned_response.ts's reader as its own text.
 */
export const WORKER_SOURCE = `
const MARK = ${JSON.stringify(MARK)};
const fns = [];
const text = (error) => String(error instanceof Error ? error.message : error);
function strip(value, seen) {
  if (typeof value === "function") {
    fns.push(value);
    let source = "";
    try { source = String(value); } catch { /* a Proxy: compared by its place */ }
    return { [MARK]: "function", id: fns.length - 1, source };
  }
  if (typeof value === "symbol") return { [MARK]: "symbol", description: value.description ?? "" };
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Response) return { [MARK]: "response" };
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const out = [];
    seen.set(value, out);
    for (const item of value) out.push(strip(item, seen));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out = {};
  seen.set(value, out);
  for (const key of Object.keys(value)) out[key] = strip(value[key], seen);
  return out;
}
async function load(url) {
  let mod;
  try {
    mod = await import(url);
  } catch (error) {
    self.postMessage({ ok: false, error: String(error && error.stack || error), message: String(error && error.message || error) });
    return;
  }
  try {
    const value = strip(mod.default, new Map());
    self.postMessage({ ok: true, hasDefault: "default" in mod, value, functions: fns.length });
  } catch (error) {
    self.postMessage({ ok: false, clone: true, error: text(error) });
  }
}
async function call({ call, fn, event }) {
  let value;
  try {
    const f = fns[fn];
    value = await f(event);
  } catch (error) {
    self.postMessage({ call, threw: text(error) });
    return;
  }
  if (value instanceof Response) {
    const read = await readReturnedResponse(value);
    if (!read.ok) {
      self.postMessage({ call, failed: read.failed });
      return;
    }
    value = read.value;
  }
  try {
    self.postMessage({ call, value });
  } catch (error) {
    self.postMessage({ call, failed: "the endpoint's response function returned a bad answer: " + text(error) });
  }
}
self.onmessage = (event) => event.data.kind === "load" ? load(event.data.url) : call(event.data);
${readReturnedResponse}
`;

type CallAnswer = { call: number; value?: unknown; threw?: string; failed?: string };

/** Why the functions of a config read by `loadConfig` (every command but `dev`, which never call them) do not run. */
export const NOT_IN_DEV =
  "a config read by loadConfig() keeps no code running, so its response functions run " +
  "only in hooktap dev (in a test, import the config module and give its endpoints to startReceiver)";

const REPLACED = "a reload replaced the config this request was routed with; send it again";

/** A config's worker, seen from here. */
export class ConfigWorker {
  #worker: Worker;
  #blob: string;
  #calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  #next = 0;
  #ended: string | undefined;
  #retiring = false;
  #over = Promise.withResolvers<void>();

  private constructor() {
    this.#blob = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
    this.#worker = new Worker(this.#blob, { type: "module" });
  }

  /**
   * Imports the module at `url` in a new worker. Resolves to its answer and the worker (ended already when
   * the load failed, the config holds no function or `keep` is false), or `"timeout"`.
   */
  static load(
    url: string,
    timeoutMs: number,
    keep: boolean,
  ): Promise<{ answer: LoadAnswer; worker: ConfigWorker } | "timeout"> {
    const self = new ConfigWorker();
    const worker = self.#worker;
    return new Promise<{ answer: LoadAnswer; worker: ConfigWorker } | "timeout">((done) => {
      const timer = setTimeout(() => {
        self.end("the config did not finish loading");
        done("timeout");
      }, timeoutMs);
      worker.onmessage = (event: MessageEvent<LoadAnswer>) => {
        clearTimeout(timer);
        const answer = event.data;
        if (!answer.ok || answer.functions === 0 || !keep) self.end(NOT_IN_DEV);
        else self.#listen();
        done({ answer, worker: self });
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        clearTimeout(timer);
        self.end("the config failed to load");
        done({ answer: { ok: false, error: event.message }, worker: self });
      };
      worker.postMessage({ kind: "load", url });
    });
  }

  #listen(): void {
    this.#worker.onmessage = (event: MessageEvent<CallAnswer>) => {
      const { call, value, threw, failed } = event.data;
      const pending = this.#calls.get(call);
      if (pending === undefined) return;
      this.#calls.delete(call);
      if (threw !== undefined) pending.reject(new Error(threw));
      else if (failed !== undefined) pending.reject(new ResponseFunctionError(failed));
      else pending.resolve(value);
      if (this.#retiring && this.#calls.size === 0) this.end(REPLACED);
    };
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault(); // an error in the user's code must not stop hooktap
      this.end(
        `the config's code stopped on an uncaught error (${event.message}); save the config to load it again`,
      );
    };
  }

  /** Whether the worker still runs. */
  get running(): boolean {
    return this.#ended === undefined;
  }

  /** Calls the config's function `id` with `event` (cloned on the way) in the worker. */
  call(id: number, event: CapturedEvent): Promise<unknown> {
    if (this.#ended !== undefined) {
      return Promise.reject(
        new ResponseFunctionError(`the endpoint's response function did not run: ${this.#ended}`),
      );
    }
    const call = this.#next++;
    return new Promise((resolve, reject) => {
      this.#calls.set(call, { resolve, reject });
      try {
        this.#worker.postMessage({ kind: "call", call, fn: id, event });
      } catch (error) {
        this.#calls.delete(call);
        reject(
          new ResponseFunctionError(
            `the event could not be passed to the endpoint's response function: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
        );
      }
    });
  }

  /** Ends the worker once no call runs (at once when none does); a later call answers that it was replaced. */
  retire(): Promise<void> {
    this.#retiring = true;
    if (this.#calls.size === 0) this.end(REPLACED);
    return this.#over.promise;
  }

  /** Ends the worker now; calls still waiting fail with `why`. */
  end(why: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    this.#worker.terminate();
    URL.revokeObjectURL(this.#blob);
    for (const pending of this.#calls.values()) {
      pending.reject(new ResponseFunctionError(`the endpoint's response function did not answer: ${why}`));
    }
    this.#calls.clear();
    this.#over.resolve();
  }

  /**
   * The worker's data with each mark replaced: a function by a proxy calling it here (its text, for
   * comparing reloads, is the original's), a `Response` and a symbol by stand-ins the checks refuse alike.
   */
  revive(value: unknown): unknown {
    return this.#revive(value, new Set());
  }

  #revive(value: unknown, seen: Set<object>): unknown {
    if (value === null || typeof value !== "object" || seen.has(value)) return value;
    seen.add(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.#revive(value[i], seen);
      return value;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const record = value as Record<string, unknown>;
    const mark = record[MARK];
    if (mark === "function") return this.#proxy(record.id as number, String(record.source));
    if (mark === "response") return new Response(null);
    if (mark === "symbol") return Symbol(String(record.description));
    for (const key of Object.keys(record)) record[key] = this.#revive(record[key], seen);
    return record;
  }

  #proxy(id: number, source: string): (event: CapturedEvent) => Promise<unknown> {
    const proxy = (event: CapturedEvent) => this.call(id, event);
    Object.defineProperty(proxy, "toString", { value: () => source });
    Object.defineProperty(proxy, RUNS_IN_WORKER, { value: true });
    return proxy;
  }
}
