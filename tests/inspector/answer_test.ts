/// <reference lib="dom" />
/**
 * The app's answer under each delivery attempt in the inspector page, in a real Chromium, as a new-user
 * audit found it: only the body was shown, a binary (or gzip) answer as its base64 text, without the
 * answer's headers (two Set-Cookie lines), and a cut answer without saying it was cut. Real `dev` relaying
 * to a real app over loopback; the page opened from the link `dev` prints.
 */
import { assertEquals, assertIncludes } from "./_assert.ts";
import { launchChromium } from "./_browser.ts";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";

const HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test({
  name:
    "the inspector shows the app's answer: headers, binary said so, gzip decoded, cut said, markup as text",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const compressed = await gzip('{"error":"boom"}');
    await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.body?.cancel();
      const path = new URL(req.url).pathname;
      if (path === "/bin") return new Response(new Uint8Array([0, 1, 2, 255, 254, 0x1b]), { status: 500 });
      if (path === "/gzip") {
        return new Response(compressed, { status: 500, headers: { "content-encoding": "gzip" } });
      }
      if (path === "/big") return new Response("Z".repeat(100 * 1024), { status: 500 });
      const headers = new Headers([["content-type", "text/html"]]);
      headers.append("set-cookie", "a=1; Path=/");
      headers.append("set-cookie", "b=2; HttpOnly");
      return new Response(HOSTILE, { status: 400, headers });
    });
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "r", path: "/r/:case", method: "POST",\n` +
        `  forward: { to: "http://127.0.0.1:${app.addr.port}/:case", mode: "relay" } }] };\n`,
    );
    await using dev = await startDev(tmp.path);
    const ids: Record<string, string> = {};
    for (const which of ["bin", "gzip", "big", "html"]) {
      const answer = await fetch(`${dev.url}/r/${which}`, { method: "POST", body: "{}" });
      await answer.body?.cancel();
      ids[which] = answer.headers.get("x-hooktap-event-id")!;
    }
    const link = dev.stderr().match(/Inspect: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})\s/)?.[1];
    if (link === undefined) throw new Error(`no inspector link in:\n${dev.stderr()}`);
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    await page.goto(link, { waitUntil: "load" });
    const answerOf = async (id: string) => {
      await page.waitForSelector(`#rows tr[data-id="${id}"]`, { timeout: 10_000 });
      await page.click(`#rows tr[data-id="${id}"]`);
      await page.waitForSelector(`#detail article[data-id="${id}"] table.attempts tr.answer`);
      return await page.$eval(`#detail article[data-id="${id}"] tr.answer`, (el) => el.textContent!);
    };

    const bin = await answerOf(ids.bin!);
    const row = await page.$eval(`#detail table.attempts tr:nth-child(2)`, (el) => el.textContent!);
    assertIncludes(row, "passed on to the sender");
    assertIncludes(bin, "(binary, 6 B)");
    assertEquals(bin.includes("AAEC"), false, `base64 shown as the body: ${bin}`);

    const gz = await answerOf(ids.gzip!);
    assertIncludes(gz, '{"error":"boom"}');
    assertIncludes(gz, "(decoded from gzip");
    assertIncludes(gz, "content-encoding");

    const big = await answerOf(ids.big!);
    assertIncludes(big, "(cut: the first 64.0 KiB of 100.0 KiB are kept)");

    const html = await answerOf(ids.html!);
    assertIncludes(html, HOSTILE);
    assertIncludes(html, "a=1; Path=/");
    assertIncludes(html, "b=2; HttpOnly");
    const markup = await page.$$eval(`#detail tr.answer script, #detail tr.answer img`, (els) => els.length);
    assertEquals(markup, 0);
    assertEquals(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assertEquals(dialogs, []);
    await dev.stop();
  },
});
