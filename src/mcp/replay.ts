/**
 * `replay`: one stored event, or every event the filters match (bulk), sent
 * again to its endpoint's forward target or to `to`, through the one send
 * engine (src/send/resend.ts: the same preparation, overrides, `resign` and
 * recording as `hooktap replay`); the app's answer to each. Every URL is
 * checked against the send policy (./send_policy.ts) before anything goes.
 * @module
 */
import { z } from "zod";
import type { ResolvedConfig } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import { type CapturedEvent, markedTargets } from "../event/record.ts";
import { checkMethod, type Overrides, parseHeaderOption } from "../send/overrides.ts";
import {
  answeredOk,
  openReplayLog,
  replayResult,
  resendEach,
  type ResendTarget,
  type Sent,
} from "../send/resend.ts";
import { deliveryUrl, targetNameOf } from "../send/target.ts";
import { compileFilter } from "../query/filter.ts";
import { scanBackward } from "../store/read/scan.ts";
import { configOf, type McpContext, openStore, storeOf } from "./context.ts";
import { FILTER_SHAPE, type FilterInput, filterOf, hasFilterInput } from "./filters.ts";
import { lookUp } from "./get_event.ts";
import { answer, type ToolAnswer } from "./result.ts";
import { checkSendTo } from "./send_policy.ts";
import { defineTool } from "./tool.ts";
import { heldNote, heldOneWarning } from "./held_by_dev.ts";
import { heldByDev } from "../send/held_by_dev.ts";
import { undeliveredTargets } from "./undelivered.ts";
import { inputWords, reword } from "./wording.ts";
import { refuseUnservedEndpoint } from "./wait_for_event.ts";

const RESULT_SCHEMA = z.object({
  id: z.string().describe("the event sent"),
  target: z.string().describe("the target's name"),
  url: z.string(),
  method: z.string(),
  ok: z.boolean().describe("the app answered 2xx"),
  status: z.number().int().optional(),
  statusText: z.string().optional(),
  durationMs: z.number(),
  location: z.string().optional(),
  contentType: z.string().optional(),
  body: z.string().optional().describe("the start of the app's answer body, as UTF-8 (left out when binary)"),
  truncated: z.boolean().optional(),
  binary: z.literal(true).optional().describe("the answer's body is not UTF-8 text, so `body` is left out"),
  bodySize: z.number().int().optional().describe("the answer body's length in bytes"),
  resigned: z.string().optional().describe("the provider whose signature was made anew"),
  warning: z.string().optional().describe("why the app will likely refuse it (a stale signature)"),
  error: z.string().optional().describe("why there was no answer, or why it was not sent"),
});

/**
 * Replay's filters: those of search_events, but the received method is `filter_method` (as the CLI's
 * `--filter-method`), because `method` is the override: the method to send with.
 */
const { method: _receivedMethod, ...OTHER_FILTERS } = FILTER_SHAPE;
const REPLAY_FILTERS = {
  ...OTHER_FILTERS,
  filter_method: FILTER_SHAPE.method.describe(
    "only events received with this HTTP method (any case); `method` is the one to send with",
  ),
};

/** The filter inputs of replay's arguments, with `filter_method` as the filters' `method`. */
function _filters(o: { filter_method?: string | undefined } & Omit<FilterInput, "method">): FilterInput {
  const { filter_method, ...rest } = o;
  const picked: FilterInput = {};
  for (const key of Object.keys(OTHER_FILTERS) as (keyof typeof OTHER_FILTERS)[]) {
    if (rest[key] !== undefined) (picked as Record<string, unknown>)[key] = rest[key];
  }
  if (filter_method !== undefined) picked.method = filter_method;
  return picked;
}

/** The tool's arguments. */
const REPLAY_INPUT = {
  id: z.string().optional().describe("the event id or a unique prefix (none: the filters choose)"),
  ...REPLAY_FILTERS,
  to: z.string().optional().describe("where to send (default: the endpoint's forward target)"),
  resign: z.boolean().optional()
    .describe("sign afresh with the endpoint's secret and the current time (Stripe, Slack, ...)"),
  method: z.string().optional().describe("send with this method instead of the original"),
  headers: z.array(z.string()).optional().describe(
    'add or replace headers: "Name: value" (empty removes)',
  ),
  set: z.array(z.string()).optional().describe("change fields of the JSON or form body: a.b=value"),
  set_new: z.boolean().optional().describe("let `set` add a field the body does not have"),
  limit: z.number().int().min(1).max(1000).optional()
    .describe("bulk: send at most this many of the matching events (default 100); more are refused"),
  timeout_seconds: z.number().positive().max(300).optional().describe(
    "longest wait for each answer (default 30)",
  ),
};

/** Its inputs, for the CLI's messages in its words (./wording.ts). */
const WORDS = inputWords(REPLAY_INPUT);

/** Where an event goes: `to`, else its endpoint's forward target, else the target it was marked with. */
function _targetOf(
  config: ResolvedConfig | null,
  to: string | undefined,
  timeoutMs: number,
  missed?: ReadonlyMap<string, string>,
): (event: CapturedEvent) => ResendTarget {
  return (event) => {
    let target: ResendTarget;
    // As `hooktap replay`: an undelivered replay goes on behalf of the target that missed the event (to
    // `to` when given, else to that target), a single one to the first target dev forwarded it to, under
    // the target's own name, so that a send to a forward target counts for it (src/send/delivery_state.ts).
    const name = missed?.get(event.id) ?? (event.forward ? markedTargets(event.forward)[0] : undefined);
    if (to !== undefined) target = { name: missed?.get(event.id) ?? targetNameOf(to), to, timeoutMs };
    else {
      const endpoint = config?.endpoints.find((e) => e.name === event.endpoint);
      const marked = name === undefined ? undefined : _forwardTarget(event, name, endpoint?.targets);
      const forward = marked ?? endpoint?.forward;
      const url = forward?.to ?? event.forward?.to;
      if (url === undefined) {
        throw new UsageError(
          `Where should ${event.id} go? Endpoint "${event.endpoint}" has no forward target. Give \`to\` ` +
            `(http://localhost:3000${event.path}), or set one in hooktap.config.ts: ` +
            `{ name: "${event.endpoint}", forward: "http://localhost:3000${event.path}" }.`,
        );
      }
      target = {
        name: marked?.name ?? forward?.name ?? targetNameOf(url),
        to: url,
        timeoutMs,
        ...(forward?.insecure ? { insecure: true } : {}),
      };
    }
    checkSendTo(deliveryUrl(event, target.to).href, config);
    return target;
  };
}

/** The forward target `name` of `event`: as the config has it now, else the URL it was marked with. */
function _forwardTarget(
  event: CapturedEvent,
  name: string,
  targets: readonly { name: string; to: string; insecure: boolean }[] | undefined,
): { name: string; to: string; insecure: boolean } | undefined {
  const configured = targets?.find((t) => t.name === name);
  if (configured !== undefined) return { name, to: configured.to, insecure: configured.insecure };
  const mark = event.forward;
  return mark !== undefined && targetNameOf(mark.to) === name
    ? { name, to: mark.to, insecure: false }
    : undefined;
}

/** The tool. */
export function replayTool(ctx: McpContext) {
  return defineTool({
    name: "replay",
    title: "Send stored webhook events again",
    description:
      "Send a stored event again (`id`), or every event the filters match (oldest first, `limit` at most), " +
      "as `hooktap replay` does: the same method, headers and exact body bytes, to the endpoint's forward " +
      "target or to `to` (loopback, a forward target, or a URL the config allows in mcp.allowSendTo). " +
      "resign signs afresh with the endpoint's secret; method, headers and set override. Each send is " +
      "recorded as a delivery (get_event shows it). Returns the app's answer to each.",
    input: REPLAY_INPUT,
    output: {
      sent: z.number().int(),
      ok: z.number().int().describe("answered 2xx"),
      failed: z.number().int().describe("sent and not answered 2xx"),
      refused: z.number().int().describe("not sent: re-signing refused or impossible, a bad `set` path"),
      results: z.array(RESULT_SCHEMA),
      held: z.array(z.string()).optional().describe(
        "undelivered events left out: the running hooktap dev still has them waiting and sends them itself " +
          "as soon as the app listens (a replay now could deliver them twice)",
      ),
    },
    readOnly: false,
    openWorld: true,
    async run(o, signal, progress) {
      const filters = _filters(o);
      const filtered = hasFilterInput(filters);
      if (o.id !== undefined && filtered) {
        throw new UsageError("Give `id` alone, or filters to replay every event they match, not both.");
      }
      if (o.id === undefined && !filtered) {
        throw new UsageError(
          "Give an event `id`, or filters to replay many (endpoint, since, type, undelivered, ...). " +
            "search_events lists the stored events.",
        );
      }
      if (o.id !== undefined && o.limit !== undefined) {
        throw new UsageError(
          "limit bounds a replay of the events the filters match; with `id` one event is sent: " +
            "leave limit out.",
        );
      }
      if (o.method !== undefined) checkMethod(o.method);
      if (o.set_new && (o.set ?? []).length === 0) throw new UsageError("set_new goes with set.");
      const config = await configOf(ctx);
      if (o.to !== undefined) checkSendTo(o.to, config);
      const overrides: Overrides = {
        headers: (o.headers ?? []).map(parseHeaderOption),
        set: o.set ?? [],
        ...(o.method !== undefined ? { method: o.method } : {}),
        ...(o.set_new ? { setNew: true } : {}),
      };
      // The undelivered events, each with the target that missed it (the one it is sent to).
      const missed = o.id === undefined && o.undelivered ? await undeliveredTargets(storeOf(ctx)) : undefined;
      const targetOf = _targetOf(config, o.to, (o.timeout_seconds ?? 30) * 1000, missed);
      let events: CapturedEvent[];
      if (o.id !== undefined) events = [await lookUp(ctx, o.id)];
      else events = await _matching(ctx, filters, o.limit ?? 100, missed);
      if (events.length === 0) {
        // An endpoint the config does not have is a typo, refused as `replay --endpoint` refuses it.
        await refuseUnservedEndpoint(ctx, filters.endpoint, "is stored or can arrive");
        return answer(
          { sent: 0, ok: 0, failed: 0, refused: 0, results: [] },
          "No stored events match these filters.",
        );
      }
      // As `hooktap replay`: the running dev's waiting events are its own to send. An undelivered bulk replay to
      // their targets leaves them; a single one is sent, as asked, with a warning.
      // A single replay is held only when dev still has the event waiting for the target it goes to.
      const sendsTo = o.id !== undefined ? (e: CapturedEvent) => targetOf(e).name : undefined;
      // Those kept for a target dev no longer sends to are not held: it never sends them.
      const found = o.to === undefined ? await heldByDev(storeOf(ctx), events, sendsTo) : undefined;
      const held = found !== undefined && found.ids.size > 0 ? found : undefined;
      let heldIds: string[] = [];
      let heldWarning: string | undefined;
      if (held !== undefined && o.id === undefined && o.undelivered) {
        heldIds = events.filter((e) => held.ids.has(e.id)).map((e) => e.id);
        events = events.filter((e) => !held.ids.has(e.id));
        const note = heldNote(heldIds.length, held.pid, events.length === 0);
        if (events.length === 0) {
          return answer({ sent: 0, ok: 0, failed: 0, refused: 0, results: [], held: heldIds }, note);
        }
        heldWarning = note;
      } else if (held !== undefined && o.id !== undefined) heldWarning = heldOneWarning(held.pid);
      for (const event of events) targetOf(event); // every URL checked before the first send
      const log = await openReplayLog(storeOf(ctx), events);
      const sent: Sent[] = [];
      const beats: Promise<void>[] = []; // each progress notification goes out before the answer
      let summary;
      try {
        summary = await resendEach(events, {
          targetOf,
          overrides,
          resign: o.resign === true,
          settingsOf: (endpoint) => config?.endpoints.find((e) => e.name === endpoint)?.signing ?? null,
          signal: AbortSignal.any([signal, ctx.signal]),
          log,
          onSend: (s) => {
            sent.push(s);
            // A bulk replay can outlast a client's request timeout: each send tells it the call is alive. Not
            // the last: the answer follows at once, and the SDK's client, which handles a notification a
            // microtask late, reports one read with the answer as an error (its request is gone).
            if (events.length > 1 && sent.length < events.length) {
              beats.push(progress(`sent ${sent.length} of ${events.length}: ${s.event.id}`));
            }
          },
        });
      } finally {
        await log.close();
        await Promise.all(beats);
      }
      return _report(sent, summary.interrupted, {
        held: heldIds,
        note: heldWarning,
        single: o.id !== undefined,
      });
    },
  });
}

/**
 * The tool's words for what the send engine says to a CLI user: the options it names become inputs
 * (./wording.ts); the tool has no way to re-sign an event stored invalid (`--resign-invalid`), and no body
 * of its own (`--body-file`): the CLI's replay has it.
 */
function _mcpWording(text: string): string {
  return reword(
    text
      .replace(/,? or use --resign-invalid to re-sign it anyway\./, ".")
      .replace(/ \(--resign-invalid signs it anyway\)/, "")
      .replace(/; use --body-file instead/, "; the CLI's `hooktap replay --body-file` sends another body"),
    WORDS,
  );
}

/**
 * The answer: what was sent and what the app answered. An event that was not sent (re-signing refused or
 * impossible, a bad `set` path) is counted as refused, not sent, and makes the answer a tool error that gives
 * the reason (the CLI exits 1 with it); the sends that went out are still listed.
 */
function _report(
  sent: readonly Sent[],
  interrupted: boolean,
  dev: { held: readonly string[]; note: string | undefined; single: boolean },
): ToolAnswer {
  // Counted here from each send, not from resendEach's summary, which counts a refused event as sent.
  const results = sent.map((s) => {
    const r = replayResult(s);
    // A single event the running dev still has waiting: its result warns that the app may get it twice.
    const warning = [r.warning && _mcpWording(r.warning), dev.single ? dev.note : undefined].filter(Boolean);
    return {
      ...r,
      ...(r.error !== undefined ? { error: _mcpWording(r.error) } : {}),
      ...(warning.length > 0 ? { warning: warning.join(" Also: ") } : {}),
    };
  });
  const refused = sent.filter((s) => s.problem !== undefined).length;
  const went = sent.length - refused;
  const ok = sent.filter(answeredOk).length;
  const structured = {
    sent: went,
    ok,
    failed: went - ok,
    refused,
    results,
    ...(dev.held.length > 0 ? { held: [...dev.held] } : {}),
  };
  const lines = results.map((r, i) =>
    `${r.id} → ${r.url}: ${
      sent[i]!.problem !== undefined
        ? `not sent: ${r.error}`
        : r.status !== undefined
        ? `${r.status} ${r.statusText ?? ""}`.trim()
        : `not answered (${r.error ?? "?"})`
    }` +
    (r.warning !== undefined ? `\n  warning: ${r.warning}` : "")
  );
  const head = `Replayed ${went} event${went === 1 ? "" : "s"}: ${ok} answered 2xx` +
    `${went - ok > 0 ? `, ${went - ok} not` : ""}` +
    `${refused > 0 ? `; ${refused} refused, not sent` : ""}${
      interrupted ? "; stopped before the end" : ""
    }.` +
    (!dev.single && dev.note !== undefined ? `\n${dev.note}` : "");
  if (refused === 0) return answer(structured, `${head}\n${lines.join("\n")}`);
  const reason = sent.length === 1 ? results[0]!.error! : `${head}\n${lines.join("\n")}`;
  return { ...answer(structured, reason), isError: true };
}

/** The events the filters match, oldest first. @throws {UsageError} when more than `limit` match. */
async function _matching(
  ctx: McpContext,
  o: FilterInput,
  limit: number,
  only: ReadonlyMap<string, string> | undefined,
): Promise<CapturedEvent[]> {
  const filter = filterOf(o);
  const reader = await openStore(ctx);
  if (reader === null) return [];
  const found: CapturedEvent[] = [];
  try {
    for await (const m of scanBackward(reader, compileFilter(filter))) {
      if (only !== undefined && !only.has(m.event.id)) continue;
      if (found.length === limit) {
        throw new UsageError(
          `More than ${limit} stored events match these filters: narrow them (since, type, endpoint), or ` +
            `raise limit (at most 1000) to send them all.`,
        );
      }
      found.push(m.event);
    }
  } finally {
    reader[Symbol.dispose]();
  }
  return found.reverse();
}
