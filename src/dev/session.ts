/**
 * The parts of a running `hooktap dev` beside the store: hooktap trigger's
 * keys and fault notes, forwarding, the sink events go through, and the
 * listening receiver. Each starts through a function that returns something
 * disposable; `dev` (src/commands/dev/run.ts) composes all of them on one
 * stack (src/dev/lifecycle.ts), `startReceiver` (src/testing/receiver.ts)
 * only the store and the listener. The store's own parts (log, lock, index,
 * unmatched log, control socket, retention) start from
 * `openStoreForWriting` (src/store/write/open.ts).
 * @module
 */
import type { Endpoint, ResolvedConfig } from "../config/types.ts";
import type { ResolvedForward } from "../config/forward.ts";
import { resignWhenStale } from "../send/resign_stale.ts";
import { type ForwardingOptions, type ForwardingSession, startForwarding } from "../send/session.ts";
import { createHandler, type EventSink, type Handler, type RequestOutcome } from "../receiver/handler.ts";
import { listen } from "../server/listen.ts";
import { chooseStack, type StackName } from "../server/stack.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { withProbe } from "../receiver/probe.ts";
import { checkRawHeaders } from "../receiver/header_check.ts";
import type { Router } from "../route/router.ts";
import type { StorePaths } from "../store/paths.ts";
import type { UnmatchedLog, WritingStore } from "../store/write/open.ts";
import type { EventWriter } from "../store/write/writer.ts";
import { type TriggerNotes, triggerNotes } from "../trigger/side_channel.ts";
import { trustTriggerKeys } from "../trigger/trust.ts";

/** What the live parts (config reload, ready object) see of a running session. */
export interface DevSession {
  readonly hostname: string;
  readonly port: number;
  /** The live router: `update()` it to serve a reloaded config's endpoints. */
  readonly router: Router;
  /** Forwarding, when some endpoint forwards. */
  readonly forwarding?: ForwardingSession | undefined;
  /** Requests being received or saved now. */
  readonly inFlight?: number;
}

/** hooktap trigger's keys, trusted on the key-pair endpoints without a `publicKey`. */
export interface TriggerKeys extends AsyncDisposable {
  /** The endpoints, those that need it given the trigger key's public key. */
  readonly endpoints: readonly Endpoint[];
  /** `router`, whose `update()` (a reloaded config) trusts the key too, until disposed. */
  trusting(router: Router): Router;
}

/** Trusts hooktap trigger's keys (made on first need in `dataDir`) for `endpoints`. */
export async function startTriggerKeys(
  dataDir: string,
  endpoints: readonly Endpoint[],
): Promise<TriggerKeys> {
  let generation = 0;
  let stopped = false;
  return {
    endpoints: await trustTriggerKeys(dataDir, endpoints),
    trusting: (router) => ({
      match: (...args) => router.match(...args),
      get endpoints() {
        return router.endpoints;
      },
      update(next) {
        const mine = ++generation;
        router.update(next);
        void trustTriggerKeys(dataDir, next).then((trusted) => {
          if (!stopped && mine === generation && trusted.some((e, i) => e !== next[i])) {
            router.update(trusted);
          }
        }, () => {});
      },
    }),
    [Symbol.asyncDispose]: () => {
      stopped = true;
      return Promise.resolve();
    },
  };
}

/** The control socket with `hooktap trigger`'s fault notes, which mark the events they describe. */
export interface FaultNotes extends AsyncDisposable {
  readonly notes: TriggerNotes;
}

/** Listens on the store's control socket (`prune`, `rm`, trigger's notes). */
export async function startControlSocket(
  store: WritingStore,
  onNotice?: (message: string) => void,
): Promise<FaultNotes> {
  const notes = triggerNotes(); // `hooktap trigger` says which deliveries are faults
  const control = await store.startControl(notes.add, onNotice);
  return { notes, [Symbol.asyncDispose]: () => control[Symbol.asyncDispose]() };
}

/** Options of {@linkcode startForwardingPart}. */
export type ForwardingPartOptions =
  & Omit<ForwardingOptions, "paths" | "endpoints" | "fallback">
  & { fallback?: ResolvedForward | undefined };

/**
 * Starts forwarding to the endpoints' targets (and `--forward-to`'s); `undefined` when none forwards.
 * Disposing stops it (in-flight deliveries get their grace, the rest stay for the next start).
 */
export async function startForwardingPart(
  paths: StorePaths,
  endpoints: readonly Endpoint[],
  options: ForwardingPartOptions = {},
): Promise<(ForwardingSession & AsyncDisposable) | undefined> {
  const { fallback, ...rest } = options;
  let current = endpoints; // a reload's (`update`): a stale signature is re-signed with the secret now set
  const forwarding = await startForwarding({
    paths,
    endpoints,
    prepare: resignWhenStale(() => current),
    ...rest,
    ...(fallback ? { fallback } : {}),
  });
  if (forwarding === undefined) return undefined;
  const update = forwarding.update.bind(forwarding);
  return Object.assign(forwarding, {
    update: (next: readonly Endpoint[]) => {
      current = next;
      return update(next);
    },
    [Symbol.asyncDispose]: () => forwarding.stop(),
  });
}

/** Options of {@linkcode sinkFor}. */
export interface SinkOptions {
  /** The log (its `count` is the session's); without it events are counted and kept nowhere. */
  writer?: ObservableSink & { readonly count: number } | undefined;
  /** Called with each event once it is durable, before the sender's 200 (the inspector's live feed). */
  onStored?: ((event: CapturedEvent) => void) | undefined;
  /** `hooktap trigger`'s notes, which mark the events they describe (format v2). */
  notes?: TriggerNotes | undefined;
  /** Wraps the sink (the hub client keeps its events in the hub's order: src/hub/order.ts). */
  wrap?: ((sink: EventSink) => EventSink) | undefined;
}

/** The sink the receiver appends to, and the number of events it took. */
export function sinkFor(options: SinkOptions): { sink: EventSink; count(): number } {
  let stored = 0;
  const writer = options.writer;
  const counted: ObservableSink = writer ?? { append: () => Promise.resolve().then(() => void stored++) };
  const sink = options.onStored ? publishing(counted, options.onStored) : counted;
  const marked = options.notes ? marking(sink, options.notes) : sink;
  return { sink: options.wrap ? options.wrap(marked) : marked, count: () => writer?.count ?? stored };
}

/** `onOutcome`, also writing the 404s and 405s to the unmatched log. */
export function recordingUnmatched(
  log: UnmatchedLog,
  onOutcome?: (outcome: RequestOutcome) => void,
): (outcome: RequestOutcome) => void {
  return (o) => {
    if (o.status === 404 || o.status === 405) {
      const { time, method, path, query, status, allow } = o;
      log.add({ time: time.toISOString(), method, path, query, status, ...(allow ? { allow } : {}) });
    }
    onOutcome?.(o);
  };
}

/** Options of {@linkcode startListener}. */
export interface ListenerOptions {
  /** The endpoints served (their body limits; the stack is chosen from them). */
  endpoints: readonly Endpoint[];
  router: Router;
  sink: EventSink;
  forward?: ForwardingSession | undefined;
  /** Interface to bind. */
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Forces the HTTP stack (`HOOKTAP_STACK`); otherwise it is chosen from the endpoints. */
  stack?: string | undefined;
  /** The config's `server` limits. */
  server?: ResolvedConfig["server"] | undefined;
  /** Called once per request with what the receiver did. */
  onOutcome?: ((outcome: RequestOutcome) => void) | undefined;
  /** Called with an error the handler threw (the request got a 500). */
  onError?: ((error: unknown) => void) | undefined;
  /** Called with a problem the receiver survived (an accept error, a request it could not parse). */
  onNotice?: ((message: string) => void) | undefined;
  /** The run's nonce, answered to the probe `doctor` sends; without it there is no probe. */
  probe?: string | undefined;
  /** Checks at start that the runtime keeps the raw header list. */
  headerCheck?: boolean;
  /** How long stopping waits for requests in flight, then for the socket to close (the server's defaults). */
  drainTimeoutMs?: number;
  closeTimeoutMs?: number;
  /**
   * Called as stopping begins with the requests in flight (when there are some) and how many of them are
   * relayed to the app, waiting for its answer; then with those cut off once the wait ran out.
   */
  onDrain?: ((inFlight: number, relaying: number) => void) | undefined;
  onCutOff?: ((cutOff: CutOff) => void) | undefined;
}

/** The requests a stop cut off once its wait ran out, by what became of them. */
export interface CutOff {
  /** Bodies still arriving: answered 503 (with Retry-After), nothing stored. */
  uploads: number;
  /** Relayed requests whose app had not answered: answered 502, their events stored. */
  relays: number;
  /** Any other still unanswered when the socket closed (a save that did not finish): no answer at all. */
  unanswered: number;
}

/** A listening receiver; disposing stops accepting, drains and closes the socket. */
export interface Listening extends AsyncDisposable {
  /** The port bound (the real one when 0 was asked). */
  readonly port: number;
  readonly hostname: string;
  /** The HTTP stack listening, and why it was chosen. */
  readonly stack: StackName;
  readonly stackReason: string;
  /** Requests being received or saved now. */
  readonly inFlight: number;
  /** The handler behind the listener, for requests that come another way (the hub client). */
  readonly handle: Handler;
  /** Settles when the server stops (on its own, or once disposed). */
  readonly finished: Promise<void>;
}

/**
 * Binds the receiver and starts serving.
 * @throws {ServeError} when the port cannot be bound.
 * @throws {UsageError} when a forward target is the receiver itself; the socket is closed again then.
 */
export async function startListener(options: ListenerOptions): Promise<Listening> {
  // What the stop's cut-off did to each request it cut, told by their outcomes.
  const cut = { uploads: 0, relays: 0 };
  const onOutcome = options.onOutcome;
  const handler = createHandler({
    endpoints: options.endpoints,
    router: options.router,
    sink: options.sink,
    ...(options.forward ? { forward: options.forward } : {}),
    // Only a caller told of the cut-off pays for an outcome per request without wanting one.
    ...(options.onCutOff === undefined ? (onOutcome ? { onOutcome } : {}) : {
      onOutcome: (o: RequestOutcome) => {
        if (o.cutOff) cut.uploads++;
        else if (o.unanswered) cut.relays++;
        onOutcome?.(o);
      },
    }),
  });
  const choice = chooseStack(options.endpoints, options.stack);
  // The probe lists the endpoints served now to a caller that knows the run's nonce (doctor, when the config
  // no longer loads).
  const probed = options.probe === undefined
    ? handler
    : withProbe(handler, options.probe, () => options.router.endpoints);
  const server = await listen(probed, {
    hostname: options.hostname,
    port: options.port,
    stack: choice.stack,
    ...(options.server ? { limits: options.server } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    ...(options.drainTimeoutMs === undefined ? {} : { drainTimeoutMs: options.drainTimeoutMs }),
    ...(options.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: options.closeTimeoutMs }),
  });
  try {
    options.forward?.checkLoop(server);
    if (options.headerCheck) await checkRawHeaders(server.hostname, server.port, { stack: choice.stack });
  } catch (error) {
    await server.shutdown();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    const inFlight = server.inFlight;
    // A request the hub client passed in (not through the listener) may be one of the relays.
    if (inFlight > 0) {
      options.onDrain?.(inFlight, Math.min(inFlight, options.forward?.forwarder.relaying ?? 0));
    }
    const cutOff = await server.shutdown();
    if (cutOff > 0) {
      const { uploads, relays } = cut;
      options.onCutOff?.({ uploads, relays, unanswered: Math.max(0, cutOff - uploads - relays) });
    }
    await server.finished.catch(() => {}); // a failure of its own is the caller's, through `finished`
  };
  return {
    port: server.port,
    hostname: server.hostname,
    stack: choice.stack,
    stackReason: choice.reason,
    get inFlight() {
      return server.inFlight;
    },
    handle: handler,
    finished: server.finished,
    [Symbol.asyncDispose]: () => stopping ??= stop(),
  };
}

/** A sink that marks the events `hooktap trigger` told about (format v2), then appends. */
function marking(sink: EventSink, notes: TriggerNotes): EventSink {
  return {
    append(event) {
      const mark = notes.take(() => decodeBody(event));
      if (mark !== undefined) {
        // Marked in place: the receiver's answer to `hooktap trigger` carries the verdict only for its events.
        event.v = 2;
        event.trigger = mark;
      }
      return sink.append(event);
    },
  };
}

/**
 * A sink that appends, then tells `onStored` (whose errors never reach the sender): the event log tells it a
 * batch at a time once durable (before the appends resolve), another sink after each append.
 */
function publishing(sink: ObservableSink, onStored: (event: CapturedEvent) => void): EventSink {
  const tell = (event: CapturedEvent) => {
    try {
      onStored(event);
    } catch { /* a listener's failure is not the sender's */ }
  };
  if (sink.observe !== undefined) {
    sink.observe((events) => {
      for (const event of events) tell(event);
    });
    return sink;
  }
  return { append: (event) => sink.append(event).then(() => tell(event)) };
}

/** A sink that may tell when its events are durable ({@linkcode EventWriter.observe}). */
type ObservableSink = EventSink & Partial<Pick<EventWriter, "observe">>;
