/**
 * What the sender gets of the app's answer and what hooktap shows of it, found by a new-user audit of relay
 * and queue forwarding: a gzip answer showed no body anywhere ("(binary, 51 B)"); a 5 MB error answer was
 * said to be shown whole by `inspect` (it keeps 64 KiB); a relay's 502 named the target's `:param` template
 * instead of the URL it sent to; an answer over 64 MiB reached the sender cut to 64 MiB as if whole; a HEAD's
 * answer lost the app's Content-Length (0). Real `dev`, a real app over loopback, `inspect` as a subprocess.
 * @module
 */
import assert from "node:assert/strict";
import { type DevProcess, LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";

const ERROR = { error: "boom", stack: "TypeError: x is undefined\n    at handler (app.js:12:7)" };
const BIG = "Z".repeat(200 * 1024);

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The app: `/gzip` a gzip'd JSON 500, `/big` a 200 KiB text 500, `/slow` no answer within the timeout. */
async function startApp() {
  const compressed = await gzip(JSON.stringify(ERROR));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    const path = new URL(req.url).pathname;
    if (path === "/gzip") {
      return new Response(compressed, {
        status: 500,
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
      });
    }
    if (path === "/big") return new Response(BIG, { status: 500, headers: { "content-type": "text/plain" } });
    if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "/elsewhere" } });
    if (path === "/bin") return new Response(new Uint8Array([0, 1, 2, 255, 254, 0x1b, 10]), { status: 500 });
    if (path === "/sized") {
      return new Response("S".repeat(1234), { headers: { "content-type": "text/plain" } });
    }
    if (path === "/huge") return new Response(new Uint8Array(65 * 1024 * 1024).fill(72));
    await new Promise((r) => setTimeout(r, 3000));
    return new Response("late");
  });
  return { server, base: `http://127.0.0.1:${server.addr.port}`, compressed };
}

const config = (base: string) =>
  `export default { port: 0, ui: false, endpoints: [\n` +
  `  { name: "relay", path: "/r/:case", method: ["POST", "HEAD"],\n` +
  `    forward: { to: "${base}/:case", mode: "relay", timeout: 1000 } },\n` +
  `  { name: "queue", path: "/q/:case", method: "POST", forward: { to: "${base}/:case", retry: false } },\n` +
  `] };\n`;

/**
 * A test with dev on `config(app.base)` in a temp dir and the app beside it (shut down after). Sanitizers off:
 * the app's answers outlive some requests on purpose (a relay that times out, a body cut).
 */
function relayTest(
  name: string,
  fn: (
    t: { tmp: { path: string }; app: Awaited<ReturnType<typeof startApp>>; dev: DevProcess },
  ) => Promise<void>,
): void {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using tmp = await withTmpDir();
      const app = await startApp();
      try {
        await writeFile(tmp.path, "hooktap.config.ts", config(app.base));
        await using dev = await startDev(tmp.path);
        await fn({ tmp, app, dev });
      } finally {
        await app.server.shutdown();
      }
    },
  });
}

relayTest(
  "a gzip answer reaches the sender as sent, and dev's line and inspect show it decoded",
  async ({ tmp, app, dev }) => {
    // The relay's sender gets the app's bytes and Content-Encoding unchanged (read raw: fetch would decode).
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    await conn.write(
      new TextEncoder().encode(
        "POST /r/gzip HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
      ),
    );
    const raw = new Uint8Array(await new Response(conn.readable).arrayBuffer());
    const split = raw.findIndex((_, i) => raw[i] === 13 && raw[i + 1] === 10 && raw[i + 2] === 13);
    const head = new TextDecoder().decode(raw.subarray(0, split));
    assert.match(head, /^HTTP\/1\.1 500/);
    assert.match(head, /content-encoding: gzip/i);
    assert.deepEqual(raw.subarray(split + 4), app.compressed);

    const queued = await fetch(`${dev.url}/q/gzip`, { method: "POST", body: "{}" });
    const { id } = await queued.json();
    await until(() => dev.stdout().split(`[${id}]`).length > 1, "the queue delivery line");
    await until(
      () => dev.stdout().match(/│ \{"error":"boom"/g)?.length === 2,
      "both bodies under their lines",
    );
    // A relay sends once: its line says "(relayed)", never "attempt 1" as if a second were to come.
    assert.match(dev.stdout(), /\[500\] POST \S+\/gzip \(\S+\) \[evt_\w+\] [\d.]+ ms \(relayed\)\n/);

    const inspect = await runCli(["inspect", id], { cwd: tmp.path });
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /"error": "boom"/);
    assert.match(inspect.stdout, /\(decoded from gzip, \d+ B as sent\)/);
    assert.doesNotMatch(inspect.stdout, /\(binary/);
    const relayedId = new TextDecoder().decode(raw).match(/x-hooktap-event-id: (evt_\w+)/i)![1]!;
    const relayed = await runCli(["inspect", relayedId], { cwd: tmp.path });
    assert.match(relayed.stdout, /#1 500 Internal Server Error .*relay, .*failed, passed on to the sender/);
    await dev.stop();
  },
);

relayTest(
  "a 200 KiB error answer: dev says inspect shows its first 64 KiB, never the whole answer",
  async ({ tmp, dev }) => {
    const answer = await fetch(`${dev.url}/r/big`, { method: "POST", body: "{}" });
    assert.equal(answer.status, 500);
    assert.equal(await answer.text(), BIG, "the sender gets the whole answer");
    const id = answer.headers.get("x-hooktap-event-id")!;
    await until(() => dev.stdout().includes(`inspect ${id}`), "the note under the delivery line");
    assert.match(
      dev.stdout(),
      new RegExp(`inspect ${id} shows its first 64\\.0 KiB of the 200\\.0 KiB answer`),
    );
    assert.doesNotMatch(dev.stdout(), /shows the whole answer/);
    const inspect = await runCli(["inspect", id], { cwd: tmp.path });
    assert.match(inspect.stdout, /cut: the first 64\.0 KiB of 200\.0 KiB are kept/);
    await dev.stop();
  },
);

relayTest(
  "a relay that times out: the sender's 502 names the URL hooktap sent to, not the target's :param form",
  async ({ tmp, app, dev }) => {
    const answer = await fetch(`${dev.url}/r/slow`, { method: "POST", body: "{}" });
    assert.equal(answer.status, 502);
    const text = await answer.text();
    assert.match(
      text,
      new RegExp(`relayed this request to ${app.base}/slow but got no answer: no answer within 1000 ms`),
    );
    assert.doesNotMatch(text, /:case/);
    await dev.stop();
    const shown = await runCli(["inspect", answer.headers.get("x-hooktap-event-id")!], { cwd: tmp.path });
    assert.match(shown.stdout, /#1 no answer .*relay, .*, the sender got hooktap's 502 \(no answer\)/);
    await dev.stop();
  },
);

relayTest(
  "export --format har gives each event the answer its sender got: the app's relayed, a 502, hooktap's own",
  async ({ tmp, app, dev }) => {
    const ids: string[] = [];
    for (const path of ["/r/gzip", "/r/slow", "/q/gzip"]) {
      const answer = await fetch(`${dev.url}${path}`, { method: "POST", body: "{}" });
      ids.push(answer.headers.get("x-hooktap-event-id")!);
      await answer.body?.cancel();
    }
    await until(() => dev.stdout().includes(`[${ids[2]}]`), "the queued delivery");
    await dev.stop();
    const har = await runCli(["export", "--format", "har"], { cwd: tmp.path });
    assert.equal(har.code, 0, har.stderr);
    type Answer = {
      status: number;
      headers: { name: string; value: string }[];
      content: { text?: string; comment?: string };
    };
    const entries: { response: Answer; comment: string }[] = JSON.parse(har.stdout).log.entries;
    const of = (id: string) => entries.find((e) => e.comment.includes(id))!.response;
    const gz = of(ids[0]!);
    assert.equal(gz.status, 500);
    assert.equal(gz.content.text, JSON.stringify(ERROR));
    assert.equal(gz.content.comment, "decoded from gzip");
    assert.ok(gz.headers.some((h) => /content-encoding/i.test(h.name)));
    const slow = of(ids[1]!);
    assert.equal(slow.status, 502);
    assert.match(
      slow.content.text ?? "",
      new RegExp(`relayed this request to ${app.base}/slow but got no answer`),
    );
    const own = of(ids[2]!);
    assert.equal(own.status, 200);
    assert.equal(own.content.text, `{"ok":true,"id":"${ids[2]}"}`);
  },
);

relayTest(
  "a relayed HEAD gets the app's Content-Length; an answer over 64 MiB is a 502 saying so, never cut",
  async ({ tmp, app, dev }) => {
    const head = await fetch(`${dev.url}/r/sized`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "1234");
    assert.equal(head.headers.get("content-type"), "text/plain");
    const post = await fetch(`${dev.url}/r/sized`, { method: "POST", body: "{}" });
    assert.equal((await post.text()).length, 1234);

    const huge = await fetch(`${dev.url}/r/huge`, { method: "POST", body: "{}" });
    const text = await huge.text();
    assert.equal(huge.status, 502, `${huge.status} with ${text.length} bytes`);
    assert.match(
      text,
      new RegExp(
        `relayed this request to ${app.base}/huge, which answered 200 with a body of 65\\.0 MiB: ` +
          `more than the 64\\.0 MiB hooktap relays\\. The event is stored as evt_`,
      ),
    );
    await dev.stop();
    // inspect says what the sender got, not only the app's 200.
    const shown = await runCli(["inspect", huge.headers.get("x-hooktap-event-id")!], { cwd: tmp.path });
    assert.match(
      shown.stdout,
      /#1 200 OK .*relay, .*, the sender got hooktap's 502 \(a body over 64\.0 MiB\)/,
    );
    // So does `logs`: beside the app's 200, what the sender got.
    const logs = await runCli(["logs"], { cwd: tmp.path });
    assert.match(
      logs.stdout.split("\n").find((l) => l.includes(huge.headers.get("x-hooktap-event-id")!)) ?? "",
      /→ 200 \(sender got 502\)/,
    );
    // So does the HAR export: the sender's answer was hooktap's 502, not the app's 200.
    const har = await runCli(["export", "--format", "har"], { cwd: tmp.path });
    assert.equal(har.code, 0, har.stderr);
    const entry = JSON.parse(har.stdout).log.entries.find((e: { comment: string }) =>
      e.comment.includes(huge.headers.get("x-hooktap-event-id")!)
    );
    assert.equal(entry.response.status, 502);
    assert.equal(entry.response.content.text, text);
  },
);

relayTest(
  "dev's line under a redirect says where it points (not followed), under a binary error body its size",
  async ({ dev }) => {
    const relayed = await fetch(`${dev.url}/r/redirect`, {
      method: "POST",
      body: "{}",
      redirect: "manual",
    });
    assert.equal(relayed.status, 302);
    assert.equal(relayed.headers.get("location"), "/elsewhere");
    await relayed.body?.cancel();
    for (const path of ["/q/redirect", "/q/bin"]) {
      await (await fetch(`${dev.url}${path}`, { method: "POST", body: "{}" })).body?.cancel();
    }
    await until(
      () => (dev.stdout().match(/<-- \[(302|500)\]/g) ?? []).length === 3,
      "three delivery lines",
    );
    const out = dev.stdout();
    assert.match(out, /│ Location: \/elsewhere \(passed on to the sender, not followed\)/);
    assert.match(out, /│ Location: \/elsewhere \(not followed\)/);
    assert.match(out, /│ \(a binary body, 7 B: hooktap inspect evt_\w+\)/);
    await dev.stop();
  },
);

relayTest(
  "replay prints a gzip answer's text, not its compressed bytes as characters",
  async ({ tmp, app, dev }) => {
    const answer = await fetch(`${dev.url}/q/sized`, { method: "POST", body: "{}" });
    const { id } = await answer.json();
    await dev.stop();
    const replay = await runCli(["replay", id, "--to", `${app.base}/gzip`], { cwd: tmp.path });
    assert.match(replay.stdout, /^500 Internal Server Error/m);
    assert.match(
      replay.stdout,
      new RegExp(`^${JSON.stringify(ERROR).replace(/[\\[\]{}()]/g, "\\$&")}$`, "m"),
    );
    const json = await runCli(["replay", id, "--to", `${app.base}/gzip`, "--json"], { cwd: tmp.path });
    assert.equal(JSON.parse(json.stdout).body, JSON.stringify(ERROR));
  },
);

Deno.test({
  name: "a relayed HEAD gets the app's Content-Length on the node:http stack too (HOOKTAP_STACK=node)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = await startApp();
    try {
      await writeFile(tmp.path, "hooktap.config.ts", config(app.base));
      await using dev = await startDev(tmp.path, [], {
        permissions: [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_STACK"],
        env: { HOOKTAP_STACK: "node" },
      });
      assert.match(dev.stderr(), /Server: node:http/);
      const head = await fetch(`${dev.url}/r/sized`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), "1234");
      // A plain answer still says its own length.
      const post = await fetch(`${dev.url}/r/sized`, { method: "POST", body: "{}" });
      assert.equal(post.headers.get("content-length"), "1234");
      assert.equal((await post.text()).length, 1234);
      await dev.stop();
    } finally {
      await app.server.shutdown();
    }
  },
});
