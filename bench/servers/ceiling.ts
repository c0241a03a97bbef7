/**
 * Configuration (c), the durable ceiling: the bare server, plus a fixed
 * 2 KB line appended per request with classic group commit (the lines that
 * arrive while a write+fdatasync is in flight share the next write and sync),
 * answering 200 only once its line is on disk. It builds no record: this is
 * what "200 means on disk" costs on this disk, with nothing else in the way.
 *
 *     deno run --allow-net --allow-write bench/servers/ceiling.ts PORT FILE
 * @module
 */
const port = Number(Deno.args[0] ?? "8000");
const path = Deno.args[1] ?? "ceiling.jsonl";

const LINE = new TextEncoder().encode(`{"pad":"${"x".repeat(2048 - 11)}"}\n`);
const file = await Deno.open(path, { append: true, create: true });

let waiting: (() => void)[] = [];
let flushing = false;

async function flush(): Promise<void> {
  flushing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    const bytes = new Uint8Array(LINE.length * batch.length);
    for (let i = 0; i < batch.length; i++) bytes.set(LINE, i * LINE.length);
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
    await file.syncData();
    for (const done of batch) done();
  }
  flushing = false;
}

function append(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!flushing) flush();
  });
}

const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request) => {
  await request.arrayBuffer();
  await append();
  return new Response("ok");
});
// SIGTERM stops it cleanly (so that `--cpu-prof` can write its profile).
const stop = () => {
  Deno.removeSignalListener("SIGTERM", stop);
  server.shutdown();
};
Deno.addSignalListener("SIGTERM", stop);
