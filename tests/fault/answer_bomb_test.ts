/**
 * Memory of `dev` against a Brotli bomb in the app's answer: an 841-byte
 * `Content-Encoding: br` body that decodes to 1 GiB of zeros. The delivery
 * record keeps its decoded start (64 KiB); before, the answer went whole into
 * `DecompressionStream`, which expanded it at once (dev's peak RSS 2.1 GB).
 * Real `dev`, a real app over loopback, dev's peak RSS (VmHWM) read from /proc.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { until } from "../_app.ts";

/**
 * 1 GiB of zeros, Brotli-compressed (quality 11, window 24) with node:zlib's `createBrotliCompress`, base64:
 * generating it takes two minutes, so the bytes are here.
 */
const BOMB_1GIB_BR =
  "z///f/gnAOKxQCD3/p/////wTwDEYQGA7v0/////4Z8AiMMiAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwW" +
  "AOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/" +
  "ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p//" +
  "///wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQ" +
  "vf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIg" +
  "DgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////" +
  "4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/" +
  "z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwW" +
  "AOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/" +
  "ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p//" +
  "///wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQ" +
  "vf/n//8//BMAcVgAoHv/Pw==";

Deno.test({
  name: "a Brotli bomb in the app's answer is decoded to its first 64 KiB, in bounded memory",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const bomb = Uint8Array.from(atob(BOMB_1GIB_BR), (c) => c.charCodeAt(0));
    assert.equal(bomb.length, 841);
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.body?.cancel();
      return new Response(bomb, { status: 500, headers: { "content-encoding": "br" } });
    });
    try {
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, ui: false, endpoints: [{ name: "q", path: "/q", method: "POST",\n` +
          `  forward: { to: "http://127.0.0.1:${app.addr.port}/", retry: false } }] };\n`,
      );
      await using dev = await startDev(tmp.path);
      const before = await peakKiB(dev.child.pid);
      const { id } = await (await fetch(`${dev.url}/q`, { method: "POST", body: "{}" })).json();
      await until(() => dev.stdout().split(`[${id}]`).length > 1, "the delivery line");
      const peak = await peakKiB(dev.child.pid);
      // The bomb whole is 1 GiB (1,048,576 KiB); its first 64 KiB and the slices around them are a few MiB.
      assert.ok(peak - before < 200 * 1024, `dev's peak RSS grew by ${peak - before} KiB`);
      const shown = await runCli(["inspect", id, "--json"], { cwd: tmp.path });
      const delivery = JSON.parse(shown.stdout).deliveries[0];
      assert.equal(delivery.decodedFrom, "br");
      assert.equal(delivery.truncated, true);
      assert.equal(delivery.bodySize, 841);
    } finally {
      await app.shutdown();
    }
  },
});

/** Peak resident memory of a process in KiB (VmHWM). */
async function peakKiB(pid: number): Promise<number> {
  const m = (await Deno.readTextFile(`/proc/${pid}/status`)).match(/^VmHWM:\s+(\d+)\s+kB/m);
  return Number(m![1]);
}
