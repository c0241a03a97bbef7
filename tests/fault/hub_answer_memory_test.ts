/**
 * Memory of the hub's client answer route against a hostile token holder
 * (a team shares one channel token): an endless answer body, sent in large
 * and in one-byte chunks, against a real `hooktap hub serve` over loopback
 * with its RSS sampled. The answer is read within a bound (a body as large as
 * the hub stores, in base64, plus its headers) and refused past it; before,
 * the route buffered the whole body (`request.json()`). The bytes sent are
 * bounded and the sender stops as soon as the bound is passed.
 * @module
 */
import assert from "node:assert/strict";
import { withTmpDir } from "../_helpers.ts";
import { createChannel, startHub } from "../_hub.ts";
import { rssKiB } from "./_load.ts";

const enc = new TextEncoder();
const MB = 1024 * 1024;

/** The process whose command line holds `arg` (the hub, by its unique KV path). */
async function pidOf(arg: string): Promise<number> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmdline.split("\0").includes(arg)) return Number(entry.name);
    } catch { /* gone */ }
  }
  throw new Error(`no process with ${arg}`);
}

/**
 * Sends `total` bytes of an answer (a JSON prefix, then base64) in chunks of `chunk` bytes to `path`, and
 * reads the status; stops once the hub answered or closed, or its RSS grew past `bound`.
 */
async function endlessAnswer(
  port: number,
  pid: number,
  path: string,
  token: string,
  options: { total: number; chunk: number; bound: number; waitMs: number; declared?: boolean },
): Promise<{ status: number; growth: number; sent: number }> {
  const before = (await rssKiB(pid)) * 1024;
  let peak = before;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let answer = "";
  let closed = false;
  const reading = (async () => {
    const buf = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      answer += new TextDecoder().decode(buf.subarray(0, n));
    }
    closed = true;
  })();
  const prefix = enc.encode('{"status":200,"headers":[],"body":"');
  const frame = (bytes: Uint8Array) => {
    if (options.declared) return bytes; // a Content-Length body: the bytes as they are
    const head = enc.encode(`${bytes.length.toString(16)}\r\n`);
    const out = new Uint8Array(head.length + bytes.length + 2);
    out.set(head);
    out.set(bytes, head.length);
    out.set(enc.encode("\r\n"), head.length + bytes.length);
    return out;
  };
  await conn.write(enc.encode(
    `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\n` +
      (options.declared
        ? `content-length: ${prefix.length + options.total + 2}\r\n\r\n`
        : "transfer-encoding: chunked\r\n\r\n"),
  ));
  await conn.write(frame(prefix));
  // Many chunks to a write: one-byte chunks are framed 100 to a write, large ones one each.
  const perWrite = Math.max(1, Math.floor(65536 / options.chunk));
  const piece = frame(enc.encode("A".repeat(options.chunk)));
  const batch = new Uint8Array(piece.length * perWrite);
  for (let i = 0; i < perWrite; i++) batch.set(piece, i * piece.length);
  let sent = 0;
  let writes = 0;
  try {
    while (sent < options.total && answer === "" && !closed) {
      await conn.write(batch);
      sent += options.chunk * perWrite;
      if (++writes % 50 === 0) {
        peak = Math.max(peak, (await rssKiB(pid)) * 1024);
        if (peak - before > options.bound) break;
      }
    }
  } catch { /* the hub closed the connection: it refused the body */ }
  const deadline = Date.now() + options.waitMs;
  while (answer === "" && !closed && Date.now() < deadline && peak - before <= options.bound) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, (await rssKiB(pid)) * 1024);
  }
  peak = Math.max(peak, (await rssKiB(pid)) * 1024);
  try {
    conn.close();
  } catch { /* closed */ }
  await reading;
  return { status: Number(answer.slice(9, 12)) || 0, growth: peak - before, sent };
}

Deno.test("hub: an endless answer from a token holder is refused at its bound, in large or one-byte chunks; the hub's RSS stays bounded", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const pid = await pidOf(`${tmp.path}/hub.sqlite`);
  const path = `/api/channels/${channel.url.split("/c/")[1]}/answers/1?client=a`;
  const bound = 120 * MB; // the attack would take 300 MB (and more as a string) without the bound
  // A body that declares its length (300 MB): before, the route read it all.
  const large = await endlessAnswer(hub.port, pid, path, channel.token, {
    total: 300 * MB,
    chunk: 64 * 1024,
    bound,
    waitMs: 30_000,
    declared: true,
  });
  assert.ok(large.growth < bound, `hub RSS grew ${(large.growth / MB).toFixed(0)} MB`);
  assert.equal(large.status, 400, `large chunks: status ${large.status} after ${large.sent} bytes`);
  assert.ok(large.sent < 100 * MB, `refused after ${(large.sent / MB).toFixed(0)} MB`);
  // The same in one-byte chunks (chunked): memory follows the bytes, not the chunks.
  const tiny = await endlessAnswer(hub.port, pid, path, channel.token, {
    total: 400_000,
    chunk: 1,
    bound,
    waitMs: 2000, // the body never ends: its memory is what is measured
  });
  assert.ok(tiny.growth < bound, `hub RSS grew ${(tiny.growth / MB).toFixed(0)} MB with one-byte chunks`);
  // deno-lint-ignore no-console
  console.log(
    `answer route: ${(large.sent / MB).toFixed(0)} MB sent before the ${large.status}, RSS +${
      (large.growth / MB).toFixed(1)
    } MB; ${tiny.sent} one-byte chunks, RSS +${(tiny.growth / MB).toFixed(1)} MB`,
  );
  // The hub still serves.
  const r = await fetch(`${channel.url}/after`, { method: "POST", body: "x" });
  assert.equal(r.status, 200);
  await r.body?.cancel();
});
