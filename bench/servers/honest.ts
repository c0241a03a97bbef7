/**
 * Configuration (c2), the honest ceiling: the durable ceiling (c) plus the
 * work every stored request needs whatever else hooktap does (issue 29 lists
 * it: headers in order, the record, the id, the verdict): the header list in
 * arrival order (the runtime's raw list, as `dev` reads it), a sortable id
 * and the record built and encoded as one JSON line by hooktap's own record
 * code, the sender's verdict (hooktap's own `examineRequest`: who sent it,
 * the event type, the signature check), group commit with fdatasync, 200
 * only once the line is on disk, answering the id as `dev` does. No routing,
 * body limits, shutdown drain, probe, live feed or activity: what `dev`
 * costs beyond this is those.
 *
 * The third argument names the parts to do (comma-separated, default all):
 * `headers`, `record` (the id and the record line; without it the fixed
 * 2 KB line of (c) is written), `verdict`, `answer` (the id answered as
 * `dev` does; without it `ok`). With none of them it is (c) again, so each
 * part's cost can be measured on its own (bench/breakdown.ts `--steps`).
 *
 *     deno run --allow-net --allow-write bench/servers/honest.ts PORT FILE [headers,record,verdict,answer]
 * @module
 */
import { buildEvent, type CapturedEvent, eventLine } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { requestHeaders } from "../../src/receiver/headers.ts";
import { examineRequest, NO_SETTINGS } from "../../src/providers/examine.ts";
import { createView } from "../../src/providers/view.ts";

/** The parts of the honest ceiling, in the order they build on each other. */
const HONEST_PARTS = ["headers", "record", "verdict", "answer"] as const;

const port = Number(Deno.args[0] ?? "8000");
const path = Deno.args[1] ?? "honest.jsonl";
const parts = new Set((Deno.args[2] ?? HONEST_PARTS.join(",")).split(",").filter(Boolean));
for (const p of parts) {
  if (!(HONEST_PARTS as readonly string[]).includes(p)) throw new Error(`unknown part ${p}: ${HONEST_PARTS}`);
}
const [withHeaders, withRecord, withVerdict, withAnswer] = HONEST_PARTS.map((p) => parts.has(p));
const file = await Deno.open(path, { append: true, create: true });
const encoder = new TextEncoder();
const newId = createIdFactory();
const FIXED = `{"pad":"${"x".repeat(2048 - 11)}"}\n`;

let lines: string[] = [];
// The requests of a batch wait on one promise, as dev's writer does (no promise of its own per request).
let waiting: PromiseWithResolvers<void> | null = null;
let flushing = false;

async function flush(): Promise<void> {
  flushing = true;
  while (waiting !== null) {
    const batch = waiting;
    const bytes = encoder.encode(lines.join(""));
    waiting = null;
    lines = [];
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
    await file.syncData();
    batch.resolve();
  }
  flushing = false;
}

const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request, info) => {
  const receivedAt = new Date();
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  const headers = withHeaders ? requestHeaders(request) : [];
  const body = new Uint8Array(await request.arrayBuffer());
  const path = q === -1 ? url.slice(start) : url.slice(start, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  let id = "";
  let event: CapturedEvent | undefined;
  if (withRecord) {
    id = newId(receivedAt);
    event = buildEvent({
      id,
      endpoint: "github",
      receivedAt,
      method: request.method,
      path,
      query,
      headers,
      body,
      remoteAddr: (info.remoteAddr as Deno.NetAddr).hostname,
    });
  }
  if (withVerdict) {
    const examined = await examineRequest(
      createView({
        method: request.method,
        path,
        query,
        headers,
        body,
        receivedAt,
        ...(event?.bodyEncoding === "utf8" ? { bodyText: event.body } : {}),
      }),
      NO_SETTINGS,
    );
    if (event !== undefined) {
      if (examined.provider !== undefined) event.provider = examined.provider;
      if (examined.type !== undefined) event.type = examined.type;
      event.verdict = examined.verdict;
    }
  }
  lines.push(event === undefined ? FIXED : eventLine(event));
  waiting ??= Promise.withResolvers<void>();
  const durable = waiting.promise;
  if (!flushing) flush();
  await durable;
  if (!withAnswer) return new Response("ok");
  const ok = new Response(`{"ok":true,"id":"${id}"}`);
  ok.headers.set("content-type", "application/json");
  ok.headers.set("x-hooktap-event-id", id);
  return ok;
});
const stop = () => {
  Deno.removeSignalListener("SIGTERM", stop);
  server.shutdown();
};
Deno.addSignalListener("SIGTERM", stop);
