/**
 * Configuration (c2), the honest ceiling: the durable ceiling (c) plus the
 * work every stored request needs whatever else hooktap does (issue 29 lists
 * it: headers in order, the record, the id, the verdict): the header list in
 * arrival order (the runtime's raw list, as `dev` reads it), a sortable id,
 * the sender's verdict (hooktap's own `examineRequest`: who sent it, the
 * event type, the signature check), the record built and encoded as one JSON
 * line by hooktap's own record code, group commit with fdatasync, 200 only
 * once the line is on disk, answering the id as `dev` does. No routing, body
 * limits, shutdown drain, probe, live feed or activity: what `dev` costs
 * beyond this is those.
 *
 *     deno run --allow-net --allow-write bench/servers/honest.ts PORT FILE
 * @module
 */
import { buildEvent, eventLine } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { requestHeaders } from "../../src/receiver/headers.ts";
import { examineRequest, NO_SETTINGS } from "../../src/provider/examine.ts";
import { createView } from "../../src/provider/view.ts";

const port = Number(Deno.args[0] ?? "8000");
const path = Deno.args[1] ?? "honest.jsonl";
const file = await Deno.open(path, { append: true, create: true });
const encoder = new TextEncoder();
const newId = createIdFactory();

let lines: string[] = [];
let waiting: (() => void)[] = [];
let flushing = false;

async function flush(): Promise<void> {
  flushing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    const bytes = encoder.encode(lines.join(""));
    waiting = [];
    lines = [];
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
    await file.syncData();
    for (const done of batch) done();
  }
  flushing = false;
}

const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request, info) => {
  const receivedAt = new Date();
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  const headers = requestHeaders(request);
  const body = new Uint8Array(await request.arrayBuffer());
  const id = newId(receivedAt);
  const path = q === -1 ? url.slice(start) : url.slice(start, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  const event = buildEvent({
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
  const examined = await examineRequest(
    createView({ method: request.method, path, query, headers, body, receivedAt, bodyText: event.body }),
    NO_SETTINGS,
  );
  if (examined.provider !== undefined) event.provider = examined.provider;
  if (examined.type !== undefined) event.type = examined.type;
  event.verdict = examined.verdict;
  await new Promise<void>((resolve) => {
    lines.push(eventLine(event));
    waiting.push(resolve);
    if (!flushing) flush();
  });
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
