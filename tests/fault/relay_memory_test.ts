/**
 * Memory of `dev` relaying large answers to many senders at once. A relayed
 * answer is held whole until its sender reads it (up to 64 MiB); with no
 * shared bound, 20 senders to an app answering 60 MiB each took 1.2 GB of
 * dev's memory. Now the answers in memory share a 128 MiB budget: an answer
 * that would pass it gets its sender hooktap's 503 (with `Retry-After`), and
 * every view says so. Real `dev`, a real app over loopback, dev's peak RSS
 * (VmHWM) read from /proc, `logs` and `inspect` as subprocesses.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";

const MIB = 1024 * 1024;
const ANSWER_MIB = 60;
const SENDERS = 20;

/** Peak resident memory of a process in KiB (VmHWM). */
async function peakKiB(pid: number): Promise<number> {
  const m = (await Deno.readTextFile(`/proc/${pid}/status`)).match(/^VmHWM:\s+(\d+)\s+kB/m);
  return Number(m![1]);
}

/** The app: every answer is 60 MiB of `A`, streamed a MiB at a time, with its Content-Length. */
function startApp() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    let left = ANSWER_MIB;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left-- === 0) return controller.close();
        controller.enqueue(new Uint8Array(MIB).fill(65));
      },
    });
    return new Response(body, { headers: { "content-length": String(ANSWER_MIB * MIB) } });
  });
}

/**
 * A relay set-up: the app of {@linkcode startApp} and `dev` relaying `POST /r` to it with the forward's
 * `timeout` (which also bounds how long a sender has to read the answer). Disposing stops both.
 */
async function relaySetup(timeoutMs = 120000) {
  const tmp = await withTmpDir();
  const app = startApp();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "r", path: "/r", method: "POST",\n` +
      `  forward: { to: "http://127.0.0.1:${app.addr.port}/", mode: "relay", timeout: ${timeoutMs} } }] };\n`,
  );
  const dev = await startDev(tmp.path);
  return {
    tmp,
    app,
    dev,
    async [Symbol.asyncDispose]() {
      await dev[Symbol.asyncDispose]();
      await app.shutdown();
      await tmp[Symbol.asyncDispose]();
    },
  };
}

/**
 * Two relayed requests at once (120 of the 128 MiB) both passed on whole: tried `tries` times, the first
 * after `firstMs`, then a second apart (a busy machine); a share of the bound never given back fails them all.
 */
async function assertTwoPass(url: string, firstMs: number, tries: number): Promise<void> {
  let both: { status: number; size: number }[] = [];
  for (let i = 0; i < tries; i++) {
    await new Promise((r) => setTimeout(r, i === 0 ? firstMs : 1000));
    both = await Promise.all([0, 1].map(async () => {
      const answer = await fetch(`${url}/r`, { method: "POST", body: "{}" });
      let size = 0;
      for await (const chunk of answer.body!) size += chunk.length;
      return { status: answer.status, size };
    }));
    if (both.every((b) => b.status === 200)) break;
  }
  const whole = { status: 200, size: ANSWER_MIB * MIB };
  assert.deepEqual(both, [whole, whole]);
}

Deno.test({
  name:
    "20 senders relayed 60 MiB answers at once: dev's memory stays bounded, and each view says who got a 503",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using set = await relaySetup();
    const { tmp, dev } = set;
    const before = await peakKiB(dev.child.pid);
    const results = await Promise.all(
      Array.from({ length: SENDERS }, async (_, i) => {
        // One every 100 ms: an answer given back as soon as the server took it (not once its sender had it)
        // would let each next one in, and all of them be held at once by the slow senders.
        await new Promise((r) => setTimeout(r, i * 100));
        const answer = await fetch(`${dev.url}/r`, { method: "POST", body: "{}" });
        const id = answer.headers.get("x-hooktap-event-id")!;
        if (answer.status !== 200) {
          return {
            id,
            status: answer.status,
            size: 0,
            text: await answer.text(),
            retry: answer.headers.get("retry-after"),
          };
        }
        await new Promise((r) => setTimeout(r, 3000)); // a slow sender: its answer is held meanwhile
        let size = 0;
        let as = true;
        for await (const chunk of answer.body!) {
          size += chunk.length;
          if (as && chunk.some((b) => b !== 65)) as = false;
        }
        assert.ok(as, "the relayed bytes are the app's");
        return { id, status: 200, size, text: "", retry: null };
      }),
    );
    const peak = await peakKiB(dev.child.pid);
    const passed = results.filter((r) => r.status === 200);
    const busy = results.filter((r) => r.status === 503);
    // 20 answers of 60 MiB held at once are 1.2 GB; the budget holds two (128 MiB) and their copies.
    assert.ok(
      peak - before < 400 * 1024,
      `dev's peak RSS grew by ${Math.round((peak - before) / 1024)} MiB (${passed.length} passed on)`,
    );
    assert.equal(passed.length + busy.length, SENDERS, JSON.stringify(results.map((r) => r.status)));
    assert.ok(passed.length >= 1, "some answers are passed on");
    for (const r of passed) assert.equal(r.size, ANSWER_MIB * MIB, "a passed-on answer is whole");
    assert.ok(busy.length >= 1, "with 20 at once, some answers pass the budget");
    for (const r of busy) {
      assert.equal(r.retry, "5");
      assert.match(
        r.text,
        /which answered 200, but the answers hooktap was relaying at once already held 128\.0 MiB/,
      );
      assert.match(r.text, new RegExp(`The event is stored as ${r.id}`));
    }
    const out = dev.stdout();
    for (const r of busy) {
      assert.match(out, new RegExp(`\\[${r.id}\\] [\\d.]+ ms \\(relayed; the sender got hooktap's 503`));
    }
    await dev.stop();

    // Every view says what each sender got: `logs` beside the app's 200, and `inspect`.
    const logs = await runCli(["logs", "-n", "50"], { cwd: tmp.path });
    assert.equal(logs.code, 0, logs.stderr);
    const lines = logs.stdout.split("\n");
    for (const r of results) {
      const line = lines.find((l) => l.includes(r.id)) ?? "";
      if (r.status === 503) assert.match(line, /→ 200 \(sender got 503\)/, line);
      else assert.match(line, /→ 200(?! \(sender)/, line);
    }
    const har = await runCli(["export", "--format", "har"], { cwd: tmp.path });
    assert.equal(har.code, 0, har.stderr);
    const entries: { comment: string; response: { status: number } }[] = JSON.parse(har.stdout).log.entries;
    for (const r of results) {
      assert.equal(entries.find((e) => e.comment.includes(r.id))?.response.status, r.status);
    }
    const shown = await runCli(["inspect", busy[0]!.id], { cwd: tmp.path });
    assert.match(
      shown.stdout,
      /#1 200 OK .*relay, .*the sender got hooktap's 503 \(relayed answers in memory over 128\.0 MiB\)/,
    );
  },
});

Deno.test({
  name: "a sender that leaves in the middle of a relayed answer gives its share of the bound back",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using set = await relaySetup();
    const { dev } = set;
    // Two senders in turn each read a MiB of their 60 MiB and hang up: had their shares stayed taken
    // (120 of 128 MiB), the next two answers could not both be held.
    for (let i = 0; i < 2; i++) {
      const left = await fetch(`${dev.url}/r`, { method: "POST", body: "{}" });
      assert.equal(left.status, 200);
      const reader = left.body!.getReader();
      let got = 0;
      while (got < MIB) got += (await reader.read()).value?.length ?? MIB;
      await reader.cancel();
    }
    // Then two at once, both whole, once the connections' ends reached dev.
    await assertTwoPass(dev.url, 300, 5);
    await dev.stop();
  },
});

Deno.test({
  name: "a sender that never reads its relayed answer is cut off after forward.timeout, and its share freed",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using set = await relaySetup(4000);
    const { dev } = set;
    // A sender that reads the answer's head and then nothing: its 60 MiB stay held while it does not read.
    const stuck = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    await stuck.write(
      new TextEncoder().encode("POST /r HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"),
    );
    const head = new Uint8Array(4096);
    const n = await stuck.read(head);
    const headText = new TextDecoder().decode(head.subarray(0, n ?? 0));
    assert.match(headText, /^HTTP\/1\.1 200/);
    const id = headText.match(/x-hooktap-event-id: (\S+)/)![1]!;
    // Past the bound, dev says so and the share is back: two answers at once both pass.
    await assertTwoPass(dev.url, 4500, 8);
    assert.match(
      dev.stderr(),
      new RegExp(
        `\\[${id}\\] the sender stopped reading the relayed answer of http://127\\.0\\.0\\.1:\\d+/: not read ` +
          `whole within 4 s \\(forward\\.timeout\\), hooktap closed its connection after handing over ` +
          `[\\d.]+ MiB of 60\\.0 MiB \\(the sender got a cut body\\) and freed the answer's memory\\.`,
      ),
    );
    // The stuck sender, reading at last, gets a body cut short and the connection's end, never a whole one.
    let got = (n ?? 0) - headText.indexOf("\r\n\r\n") - 4;
    const buf = new Uint8Array(MIB);
    for (let r = await stuck.read(buf); r !== null; r = await stuck.read(buf)) got += r;
    stuck.close();
    assert.ok(got < ANSWER_MIB * MIB, `the stuck sender got ${got} bytes`);
  },
});
