/**
 * Configuration (c2), the honest ceiling: the durable ceiling (c) plus the
 * work every stored request needs whatever else hooktap does: the header
 * list in arrival order (the runtime's raw list, as `dev` reads it), a
 * sortable id, the record built and encoded as one JSON line by hooktap's own
 * record code, group commit with fdatasync, 200 only once the line is on
 * disk. No routing, sender detection, verdict, live feed or drain: what `dev`
 * costs beyond this is those.
 *
 *     deno run --allow-net --allow-write bench/servers/honest.ts PORT FILE
 * @module
 */
import { buildEvent, eventLine } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { requestHeaders } from "../../src/receiver/headers.ts";

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
  const event = buildEvent({
    id: newId(receivedAt),
    endpoint: "github",
    receivedAt,
    method: request.method,
    path: q === -1 ? url.slice(start) : url.slice(start, q),
    query: q === -1 ? "" : url.slice(q),
    headers,
    body,
    remoteAddr: (info.remoteAddr as Deno.NetAddr).hostname,
  });
  await new Promise<void>((resolve) => {
    lines.push(eventLine(event));
    waiting.push(resolve);
    if (!flushing) flush();
  });
  return new Response("ok");
});
const stop = () => {
  Deno.removeSignalListener("SIGTERM", stop);
  server.shutdown();
};
Deno.addSignalListener("SIGTERM", stop);
