/// <reference lib="dom" />
/**
 * What a relayed request's sender got, in the inspector page, in a real Chromium: a sender that hung up
 * before the app answered was said to have had the app's answer passed on. Real `dev` relaying to a real app
 * over loopback, a raw sender that hangs up; the page opened from the link `dev` prints.
 */
import { assertIncludes } from "./_assert.ts";
import { launchChromium } from "./_browser.ts";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";

Deno.test({
  name: "the inspector says a relayed sender that hung up before the answer got none",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.body?.cancel();
      await new Promise((r) => setTimeout(r, 1000));
      return new Response("late");
    });
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "r", path: "/r", method: "POST",\n` +
        `  forward: { to: "http://127.0.0.1:${app.addr.port}/", mode: "relay" } }] };\n`,
    );
    await using dev = await startDev(tmp.path);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
    await conn.write(new TextEncoder().encode("POST /r HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"));
    await new Promise((r) => setTimeout(r, 200));
    conn.close();
    const deadline = Date.now() + 10_000;
    while (!/the sender had hung up/.test(dev.stdout()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const id = dev.stdout().match(/evt_\w+/)?.[0];
    if (id === undefined) throw new Error(`no event in:\n${dev.stdout()}`);
    const link = dev.stderr().match(/Inspect: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})\s/)?.[1];
    if (link === undefined) throw new Error(`no inspector link in:\n${dev.stderr()}`);
    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(link, { waitUntil: "load" });
    await page.waitForSelector(`#rows tr[data-id="${id}"]`, { timeout: 10_000 });
    await page.click(`#rows tr[data-id="${id}"]`);
    await page.waitForSelector(`#detail article[data-id="${id}"] table.attempts tr.answer`);
    const row = await page.$eval(`#detail table.attempts tr:nth-child(2)`, (el) => el.textContent!);
    assertIncludes(row, "the sender had hung up before the answer: it reached no one");
    const targets = await page.$eval(`#detail #targets`, (el) => el.textContent!);
    assertIncludes(targets, "(200, the sender had hung up, 1 attempt)");
    await dev.stop();
  },
});
