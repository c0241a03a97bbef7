/**
 * `trigger`: a provider's event or sequence, signed as the provider signs
 * it, with the faults asked for, into the running `hooktap dev` (the first
 * endpoint for the provider, or the one named) or straight to a URL; what
 * the receiver answered. The same steps as `hooktap trigger`, over the same
 * modules (src/trigger/: catalog, dev target, keys, signing, run).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { CATALOG } from "../providers/catalog.ts";
import { parseHeaderOption } from "../send/overrides.ts";
import { loadCatalog, resolveEvent as resolveTrigger } from "../trigger/registry.ts";
import { type Delivery, devAnswer, judgeByDev, trigger, type TriggerRequest } from "../trigger/run.ts";
import { setUpTrigger } from "../trigger/setup.ts";
import { headerList, HEADERS_SCHEMA } from "./_headers.ts";
import { configOf, type McpContext, noDevMessage, storeOf } from "./context.ts";
import { answer } from "./result.ts";
import { checkSendTo } from "./send_policy.ts";
import { defineTool } from "./tool.ts";
import { inputWords, reword } from "./wording.ts";

/** How much of each answer's body is returned. */
const ANSWER_PREVIEW = 4096;

const DELIVERY_SCHEMA = z.object({
  event: z.string().describe("the catalog event sent"),
  fault: z.string().optional().describe("what is wrong with it on purpose"),
  attempt: z.number().int().describe("0 the first, then retries"),
  method: z.string(),
  url: z.string(),
  signed: z.enum(["secret", "key", "none"]),
  expectRejection: z.boolean().describe("a stale or bad-signature delivery, meant to be refused"),
  ok: z.boolean().describe("answered 2xx, or refused when it was meant to be"),
  status: z.number().int().optional(),
  error: z.string().optional().describe("why there was no answer"),
  answerProblem: z.string().optional().describe(
    "why a 2xx answer to a URL handshake (Slack url_verification, Zoom, Discord, Twitch) fails it",
  ),
  durationMs: z.number(),
  storedEventId: z.string().optional().describe("through dev: the id dev stored it under (get_event)"),
  devVerdict: z.string().optional().describe(
    "through dev, when not valid: the verdict dev gave it (meant for a fault; for a delivery meant to pass, " +
      "the signature did not verify there: a `secret` that is not the endpoint's, say)",
  ),
  answer: z.object({
    headers: HEADERS_SCHEMA,
    body: z.string().optional().describe(
      `the start of the answer body (${ANSWER_PREVIEW} bytes at most), as UTF-8 (left out when binary)`,
    ),
    binary: z.literal(true).optional().describe("the answer's body is not UTF-8 text, so `body` is left out"),
    truncated: z.boolean().optional().describe("the body goes on past `body`"),
    bodySize: z.number().int(),
  }).optional(),
});

/** `bytes` as UTF-8 text (a character cut at the end left out), or `undefined` when they are not text. */
function _utf8Start(bytes: Uint8Array): string | undefined {
  try {
    // `stream`: a character the preview's cut split at the end is kept back, not an error.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}

function _delivery(d: Delivery, viaDev: boolean): z.infer<typeof DELIVERY_SCHEMA> {
  const out: z.infer<typeof DELIVERY_SCHEMA> = {
    event: d.event,
    attempt: d.attempt,
    method: d.method,
    url: d.url,
    signed: d.signed,
    expectRejection: d.expectRejection,
    ok: d.ok,
    durationMs: d.durationMs,
  };
  if (d.fault !== undefined) out.fault = d.fault;
  if (d.status !== undefined) out.status = d.status;
  if (d.error !== undefined) out.error = d.error;
  if (d.answerProblem !== undefined) out.answerProblem = d.answerProblem;
  if (d.devVerdict !== undefined) out.devVerdict = d.devVerdict;
  const id = viaDev ? devAnswer(d).id : undefined;
  if (id !== undefined) out.storedEventId = id;
  if (d.status !== undefined) {
    const body = d.responseBody ?? new Uint8Array();
    const text = _utf8Start(body.subarray(0, ANSWER_PREVIEW));
    out.answer = {
      headers: headerList(d.responseHeaders ?? []),
      ...(text === undefined ? { binary: true as const } : { body: text }),
      ...(body.length > ANSWER_PREVIEW ? { truncated: true } : {}),
      bodySize: body.length,
    };
  }
  return out;
}

/** One delivery in a line: what was sent where, and the answer. */
function _line(d: z.infer<typeof DELIVERY_SCHEMA>): string {
  return `${d.event}${d.fault ? ` (${d.fault})` : ""} → ${d.url}: ` +
    (d.status !== undefined ? `${d.status}` : `no answer (${d.error ?? "?"})`) +
    (d.storedEventId ? `, stored as ${d.storedEventId}` : "");
}

/** How often a trigger waiting between retries reports progress, ms. */
const PROGRESS_MS = 5000;

/** The tool's arguments. */
const TRIGGER_INPUT = {
  provider: z.string().min(1).describe("github, stripe, slack, shopify, ... (list_triggers)"),
  event: z.string().min(1).describe("an event (push, invoice.paid) or a sequence (checkout)"),
  endpoint: z.string().optional().describe(
    "the dev endpoint to send to (default: the first for the provider)",
  ),
  to: z.string().optional().describe("send straight to this URL instead of the running dev"),
  // An empty secret signs nothing (Web Crypto refuses a zero-length key): refused with the input's name.
  secret: z.string().min(1).optional().describe("sign with this secret instead of the endpoint's"),
  signature_url: z.string().optional().describe(
    "the URL the signature covers (Twilio), if not where it goes",
  ),
  set: z.array(z.string()).optional()
    .describe("change fields of the JSON or form body: data.object.amount_paid=5000 (signed afresh)"),
  set_new: z.boolean().optional().describe("let `set` add a field the body does not have"),
  headers: z.array(z.string()).optional()
    .describe('add or replace headers: "Name: value" (an empty value removes)'),
  duplicate: z.boolean().optional().describe("fault: send each delivery twice, identical"),
  out_of_order: z.boolean().optional().describe("fault: a sequence's events shuffled"),
  seed: z.number().int().min(0).max(2 ** 31).optional().describe("seed of out_of_order's shuffle"),
  stale: z.boolean().optional().describe("fault: a timestamp beyond the provider's tolerance"),
  bad_signature: z.boolean().optional().describe("fault: sign with the wrong secret or key"),
  retries: z.number().int().min(0).max(20).optional()
    .describe("fault: send each delivery again N times (the provider's schedule, compressed to seconds)"),
  timeout_seconds: z.number().positive().max(300).optional().describe(
    "longest wait for each answer (default 30)",
  ),
};

/** Its inputs, for the CLI's messages in its words (./wording.ts). */
const WORDS = inputWords(TRIGGER_INPUT);

/** What it returns. */
const TRIGGER_OUTPUT = {
  provider: z.string(),
  event: z.string(),
  sequence: z.string().optional(),
  seed: z.number().int().optional().describe("the shuffle's seed, to repeat it"),
  viaDev: z.boolean().describe("sent into the running hooktap dev"),
  ok: z.boolean().describe("every delivery got a 2xx (a fault meant to be refused: was refused)"),
  deliveries: z.array(DELIVERY_SCHEMA),
  warnings: z.array(z.string()),
};

/** The tool. */
export function triggerTool(ctx: McpContext) {
  return defineTool({
    name: "trigger",
    title: "Send a provider's webhook event",
    description:
      "Send a provider's event (github push, stripe invoice.paid, ...) or sequence, signed as the provider " +
      "signs it, as `hooktap trigger` does: by default into the `hooktap dev` running in this project (the " +
      "first endpoint for the provider, or `endpoint`), signed with that endpoint's secret (or `secret`); or " +
      "straight to `to` (loopback, a forward target, or a URL the config allows in mcp.allowSendTo). " +
      "Overrides (set, headers) and faults (duplicate, stale, bad_signature, out_of_order, retries) as the " +
      "CLI's. Returns each delivery and what the receiver answered; through dev, storedEventId is the id " +
      "to read with get_event. list_triggers shows what can be sent.",
    input: TRIGGER_INPUT,
    output: TRIGGER_OUTPUT,
    readOnly: false,
    openWorld: true,
    async run(o, signal, progress) {
      if (o.seed !== undefined && !o.out_of_order) {
        throw new UsageError("seed orders out_of_order's shuffle: set out_of_order too.");
      }
      if (o.set_new && (o.set ?? []).length === 0) throw new UsageError("set_new goes with set.");
      if (o.stale && o.bad_signature) {
        throw new UsageError("Give stale or bad_signature, not both: each is its own fault.");
      }
      const catalog = await loadCatalog(o.provider); // an unknown provider: its did-you-mean
      const provider = catalog.provider;
      const resolved = resolveTrigger(catalog, o.event); // an unknown event: its did-you-mean
      const headers = (o.headers ?? []).map(parseHeaderOption);
      const config = await configOf(ctx);
      const paths = storeOf(ctx);
      if (o.to !== undefined) checkSendTo(o.to, config);
      const setup = await setUpTrigger({
        config,
        provider,
        endpoint: o.endpoint,
        to: o.to,
        secret: o.secret,
        paths: () => Promise.resolve(paths),
        secretOption: "secret",
        unsigned: catalog.unsignedEvents?.includes(o.event) === true,
        noDev: () =>
          new UsageError(
            noDevMessage("there is nothing to trigger into") +
              " Or send straight to your app with `to` (http://localhost:3000/webhooks).",
          ),
      });
      const { to, material, keys } = setup;
      const signing = setup.endpoint?.signing;
      const warnings = [...setup.warnings];
      if (setup.key !== undefined) {
        warnings.unshift(
          `signed with hooktap's ${setup.key.kind} key (.hooktap/trigger-keys.json); the app must trust ` +
            setup.key.publicKey,
        );
      }
      const title = CATALOG[provider]?.title ?? provider;
      const request: TriggerRequest = {
        provider,
        event: o.event,
        to,
        ...(o.signature_url !== undefined ? { signatureUrl: o.signature_url } : {}),
        ...material,
        ...(keys !== undefined ? { keys } : {}),
        ...(signing?.tolerance !== undefined ? { tolerance: signing.tolerance } : {}),
        set: o.set ?? [],
        ...(o.set_new ? { setNew: true } : {}),
        headers,
        fault: {
          ...(o.duplicate ? { duplicate: true } : {}),
          ...(o.out_of_order ? { outOfOrder: true } : {}),
          ...(o.stale ? { stale: true } : {}),
          ...(o.bad_signature ? { badSignature: true } : {}),
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
          ...(o.retries !== undefined ? { retries: o.retries } : {}),
        },
      };
      // No `to`, or `to` the running dev's own URL: dev answers 200 whatever the signature, and its verdict
      // tells whether a fault was refused.
      const viaDev = setup.intoDev;
      let told: boolean | undefined;
      // Retries wait the provider's schedule (compressed, still seconds each): a client that asked for
      // progress hears, as each next delivery goes out, how the one before went, and every few seconds while
      // a retry waits that the call is alive (the SDK resets its request timeout on them with
      // resetTimeoutOnProgress). Nothing is told after the last: the answer follows at once, and the SDK's
      // client drops a notification it reads together with the answer, as an error of its own.
      let sent = 0;
      let last = "";
      const sentSoFar = () => `sent ${sent} deliver${sent === 1 ? "y" : "ies"}, the last ${last}`;
      const beats: Promise<void>[] = []; // each progress notification goes out before the answer
      const beat = setInterval(
        () =>
          void beats.push(progress(
            sent === 0
              ? "the first delivery waits for its answer"
              : `${sentSoFar()}; the next waits for its retry time or its answer`,
          )),
        PROGRESS_MS,
      );
      const outcome = await trigger(request, {
        timeoutMs: (o.timeout_seconds ?? 30) * 1000,
        signal: AbortSignal.any([signal, ctx.signal]),
        beforeSend: async (d) => {
          if (sent > 0) beats.push(progress(sentSoFar()));
          if (!viaDev || told === false) return;
          const { tellDev } = await import("../trigger/side_channel.ts");
          told = await tellDev(paths, d).then(() => true, (error: Error) => {
            if (d.fault !== undefined) {
              warnings.push(`dev was not told which deliveries are faults: ${error.message}`);
            }
            return false;
          });
        },
        onDelivery: async (d) => {
          if (viaDev && d.status !== undefined && d.status < 300) await _devVerdict(ctx, d);
          sent++;
          last = _line(_delivery(d, viaDev));
        },
      }).finally(() => clearInterval(beat));
      await Promise.all(beats);
      const deliveries = outcome.deliveries.map((d) => _delivery(d, viaDev));
      const ok = deliveries.length > 0 && deliveries.every((d) => d.ok);
      const missed = deliveries.filter((d) => !d.ok).length; // not answered 2xx, or a fault not refused
      const structured = {
        provider,
        event: o.event,
        ...(resolved.sequence !== undefined ? { sequence: resolved.sequence } : {}),
        ...(outcome.seed !== undefined ? { seed: outcome.seed } : {}),
        viaDev,
        ok,
        deliveries,
        warnings: warnings.map((w) => reword(w, WORDS)),
      };
      const lines = deliveries.map((d) => _line(d) + _verdictNote(d));
      return answer(
        structured,
        `${ok ? "Sent" : `Sent, ${missed} of ${deliveries.length} not as meant`}: ${title} ${o.event}, ` +
          `${deliveries.length} ` +
          `deliver${deliveries.length === 1 ? "y" : "ies"}${viaDev ? " into hooktap dev" : ""}.\n` +
          [...lines, ...structured.warnings.map((w) => `warning: ${w}`)].join("\n"),
      );
    },
  });
}

/** What a delivery's line adds of dev's verdict, or of a fault the receiver accepted. */
function _verdictNote(d: ReturnType<typeof _delivery>): string {
  if (d.devVerdict === undefined) {
    return d.expectRejection && !d.ok && d.status !== undefined && d.status < 300
      ? " (accepted, but it should have been refused)"
      : d.answerProblem !== undefined
      ? ` (but ${d.answerProblem})`
      : "";
  }
  if (d.expectRejection && d.ok) return ` (dev's verdict: ${d.devVerdict}, as the fault intends)`;
  if (d.expectRejection) {
    return ` (dev's verdict: ${d.devVerdict}: dev could not judge the signature, so the fault proves nothing${
      d.devVerdict === "no-secret" ? "; give the endpoint its secret in the config" : ""
    })`;
  }
  return ` (dev's verdict: ${d.devVerdict}: get_event gives the reason)`;
}

/**
 * Through dev (which answers 200 unless the endpoint enforces), dev's verdict of each delivery: a fault is
 * judged by it (refused as meant when not valid), and a delivery meant to pass that dev found not valid (a
 * `secret` that is not the endpoint's) says so instead of passing for a good one.
 */
async function _devVerdict(ctx: McpContext, d: Delivery): Promise<void> {
  const { id, verdict } = devAnswer(d);
  if (id === undefined) return;
  if (verdict !== undefined) return judgeByDev(d, verdict); // dev's own answer says it
  try {
    const { lookUp } = await import("./get_event.ts");
    const status = (await lookUp(ctx, id)).verdict?.status;
    if (status !== undefined) judgeByDev(d, status);
  } catch { /* not found: judged by the answer */ }
}
