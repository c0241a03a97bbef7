/// <reference lib="dom" />
/**
 * The inspector page in a real Chromium: the stored list, a live row,
 * filters and search, the hex view and a byte-exact download, replay from
 * the page to a real server, hostile payloads shown as text, a foreign Host
 * refused. Screenshots go to tests/inspector/screenshots/.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Page } from "puppeteer-core";
import { buildEvent } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { launchChromium, SCREENSHOTS } from "./_browser.ts";
import { BINARY, HOSTILE, inspectorFixture, newEvent, targetServer } from "./_fixture.ts";

const shot = (page: Page, name: string) =>
  page.screenshot({ path: fileURLToPath(new URL(`${name}.png`, SCREENSHOTS)) as `${string}.png` });

const rowIds = (page: Page) =>
  page.$$eval("#rows tr[data-id]", (rows) => rows.map((r) => (r as HTMLElement).dataset.id!));

async function waitRows(page: Page, count: number): Promise<void> {
  await page.waitForFunction((n) => document.querySelectorAll("#rows tr[data-id]").length === n, {
    timeout: 5000,
  }, count);
}

Deno.test({
  name: "the inspector page in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await using fx = await inspectorFixture();
    await using target = targetServer();
    let canaryHits = 0;
    await using canary = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      canaryHits++;
      return new Response("gotcha");
    });
    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    let refusing = false;
    let refused = 0;
    page.on("console", (m) => {
      if (m.type() !== "error") return;
      if (refusing && /status of 400/.test(m.text())) refused++;
      else problems.push(m.text());
    });
    await page.goto(fx.inspector.openUrl, { waitUntil: "load" });

    await t.step(
      "the printed link's token leaves the address bar for an HttpOnly, SameSite=Strict cookie",
      async () => {
        assertEquals(page.url(), fx.inspector.url);
        assertEquals(await page.evaluate(() => document.cookie), "");
        const cookies = await browser.cookies();
        const session = cookies.find((c) => c.name === `hooktap_inspector_${fx.inspector.port}`);
        assertEquals(session?.value, fx.inspector.token);
        assertEquals(session?.httpOnly, true);
        assertEquals(session?.sameSite, "Strict");
        // A browser without the link gets neither the page nor the API.
        const stranger = await browser.createBrowserContext();
        const visit = await stranger.newPage();
        assertEquals((await visit.goto(fx.inspector.url))?.status(), 401);
        assertEquals((await visit.goto(`${fx.inspector.url}api/events`))?.status(), 401);
        await stranger.close();
      },
    );

    await t.step("the list shows the stored events, newest first; j/k move", async () => {
      await waitRows(page, fx.events.length);
      assertEquals(await rowIds(page), fx.events.map((e) => e.id).reverse());
      await page.keyboard.press("j");
      await page.waitForSelector(`#detail article[data-id="${fx.events.at(-1)!.id}"]`);
      await page.keyboard.press("j");
      await page.waitForSelector(`#detail article[data-id="${fx.events.at(-2)!.id}"]`);
      await page.keyboard.press("k");
      await page.waitForSelector(`#detail article[data-id="${fx.events.at(-1)!.id}"]`);
      await shot(page, "list");
    });

    await t.step("the detail shows delivery attempts with the app's answers", async () => {
      const event = fx.events[4]!;
      await page.click(`#rows tr[data-id="${event.id}"]`);
      await page.waitForSelector(`#detail article[data-id="${event.id}"] table.attempts`);
      const attempts = await page.$eval("table.attempts", (el) => el.textContent!);
      assertIncludes(attempts, "connection refused");
      assertIncludes(attempts, "failed");
      await shot(page, "delivery");
    });

    await t.step("a new event appears live, without reloading", async () => {
      await page.waitForFunction(() => document.body.dataset.live === "on", { timeout: 5000 });
      const event = newEvent('{"live":"yes","hello":"from the stream"}');
      await fx.add(event);
      await page.waitForSelector(`#rows tr[data-id="${event.id}"]`, { timeout: 5000 });
      assertEquals((await rowIds(page))[0], event.id);
      fx.events.push(event);
      await shot(page, "live");
    });

    await t.step("filters and text search narrow the list", async () => {
      await page.focus("body");
      await page.keyboard.press("/");
      assertEquals(await page.evaluate(() => document.activeElement?.id), "q");
      await page.keyboard.type("req-7");
      await waitRows(page, 1);
      assertEquals(await rowIds(page), [fx.events[7]!.id]);
      await page.$eval("#q", (el) => ((el as HTMLInputElement).value = ""));
      await page.select('select[name="verdict"]', "invalid");
      const invalid = fx.events.filter((e) => e.verdict?.status === "invalid").map((e) => e.id).reverse();
      await waitRows(page, invalid.length);
      assertEquals(await rowIds(page), invalid);
      await page.type('input[name="type"]', "push");
      const push = fx.events.filter((e) => e.verdict?.status === "invalid" && e.type === "push").map((e) =>
        e.id
      )
        .reverse();
      await waitRows(page, push.length);
      await shot(page, "filtered");
      await page.$eval('input[name="type"]', (el) => ((el as HTMLInputElement).value = ""));
      // As in the CLI: a missing verdict is "unsigned", and a field of the JSON body narrows further.
      await page.select('select[name="verdict"]', "unsigned");
      const unsigned = fx.events.filter((e) => e.verdict === undefined);
      await waitRows(page, unsigned.length);
      assertEquals(await rowIds(page), unsigned.map((e) => e.id).reverse());
      await page.type('input[name="where"]', "action=closed");
      const closed = unsigned.filter((e) => e.body.startsWith("{") && JSON.parse(e.body).action === "closed");
      await waitRows(page, closed.length);
      assertEquals(await rowIds(page), closed.map((e) => e.id).reverse());
      // A malformed one is named, with its fix.
      await page.$eval('input[name="where"]', (el) => ((el as HTMLInputElement).value = ""));
      refusing = true; // the browser logs the API's 400 answers (list and stream): expected until fixed
      await page.type('input[name="where"]', "=x");
      await page.waitForFunction(
        () => /where must look like field=value/.test(document.getElementById("status")!.textContent!),
        { timeout: 5000 },
      );
      await page.$eval('input[name="where"]', (el) => ((el as HTMLInputElement).value = ""));
      await page.select('select[name="verdict"]', "");
      // Smart case, as in the CLI: a capital makes the search exact.
      await page.type("#q", "hookshot");
      const hookshot = fx.events.filter((e) => e.headers.some(([, v]) => v.includes("Hookshot")));
      await waitRows(page, hookshot.length);
      refusing = false;
      assert.ok(refused > 0, "the bad filter was answered 400");
      await page.$eval("#q", (el) => ((el as HTMLInputElement).value = ""));
      await page.type("#q", "PNG");
      const binary = fx.events.filter((e) => e.bodyEncoding === "base64").map((e) => e.id).reverse();
      await waitRows(page, binary.length);
      assertEquals(await rowIds(page), binary);
    });

    await t.step("a binary body shows as hex and downloads byte-exact", async () => {
      const id = fx.events.find((e) => e.bodyEncoding === "base64")!.id;
      await page.click(`#rows tr[data-id="${id}"]`);
      await page.waitForSelector(`#detail article[data-id="${id}"] pre.hex`);
      const hex = await page.$eval("pre.hex", (el) => el.textContent!);
      assertIncludes(hex, "00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  ................");
      assertIncludes(hex, "00000100  89 50 4e 47");
      await shot(page, "binary");
      const downloads = await Deno.makeTempDir({ prefix: "hooktap_dl_" });
      try {
        const cdp = await page.createCDPSession();
        await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
        await page.click("#download");
        const file = `${downloads}/${id}.body`;
        let bytes: Uint8Array | undefined;
        for (let i = 0; i < 100 && bytes === undefined; i++) {
          await new Promise((r) => setTimeout(r, 50));
          bytes = await Deno.readFile(file).catch(() => undefined);
        }
        assertEquals(bytes, BINARY);
      } finally {
        await Deno.remove(downloads, { recursive: true });
      }
      await page.$eval("#q", (el) => ((el as HTMLInputElement).value = ""));
      await page.type("#q", " ");
      await page.keyboard.press("Backspace");
      await waitRows(page, fx.events.length);
    });

    await t.step("replay from the page reaches a real server with the exact body", async () => {
      const event = fx.events.find((e) => e.bodyEncoding === "utf8" && e.body.startsWith('{"n"'))!;
      await page.click(`#rows tr[data-id="${event.id}"]`);
      await page.waitForSelector(`#detail article[data-id="${event.id}"]`);
      await page.focus("body");
      await page.keyboard.press("r");
      await page.waitForSelector("#replay-dialog[open]");
      await page.$eval("#replay-to", (el, url) => ((el as HTMLInputElement).value = url), target.url);
      await shot(page, "replay");
      await page.click("#replay-send");
      await page.waitForFunction(
        () => /202/.test(document.getElementById("replay-result")?.textContent ?? ""),
        {
          timeout: 5000,
        },
      );
      assertEquals(target.received.length, 1);
      assertEquals(new TextDecoder().decode(target.received[0]!.body), event.body);
      assertEquals(target.received[0]!.headers.get("x-request-id"), event.headers[2]![1]);
      // An edited body goes out as edited.
      await page.$eval(
        "#replay-body",
        (el) => ((el as HTMLTextAreaElement).value = '{"edited":"in the page"}'),
      );
      await page.click("#replay-send");
      await page.waitForFunction(() => document.querySelectorAll("#replay-result p.ok").length === 1);
      assertEquals(new TextDecoder().decode(target.received[1]!.body), '{"edited":"in the page"}');
      await page.keyboard.press("Escape");
    });

    await t.step("hostile payloads show as text and execute nothing", async () => {
      const trap = `http://127.0.0.1:${canary.addr.port}/canary`;
      const body = HOSTILE.slice(0, -1) + `,"img":"<img src=${trap} onerror=alert(1)>"}`;
      const at = new Date();
      const event = buildEvent({
        id: createIdFactory()(at),
        endpoint: "<img src=x onerror=window.__pwned=4>",
        receivedAt: at,
        method: "POST",
        path: "/hooks/</script><script>window.__pwned=5</script>",
        query: "u=javascript:alert(1)",
        headers: [["host", "localhost:8787"], ["content-type", "application/json"], [
          "x-evil",
          `<img src=${trap}>`,
        ]],
        body: new TextEncoder().encode(body),
        remoteAddr: "127.0.0.1",
      });
      event.provider = "<b>prov</b>";
      event.type = "\u202Eevil";
      await fx.add(event);
      await page.waitForSelector(`#rows tr[data-id="${event.id}"]`);
      await page.click(`#rows tr[data-id="${event.id}"]`);
      await page.waitForSelector(`#detail article[data-id="${event.id}"] details.json`);
      const text = await page.$eval("#detail", (el) => el.textContent!);
      assertIncludes(text, '"<script>window.__pwned=1</script>"');
      assertIncludes(text, "</script><img src=x onerror=");
      assertIncludes(text, "javascript:window.__pwned=3");
      assertIncludes(text, "invoice⟨U+202E⟩gnp.exe");
      const rowText = await page.$eval(`#rows tr[data-id="${event.id}"]`, (el) => el.textContent!);
      assertIncludes(rowText, "<img src=x onerror=window.__pwned=4>");
      assertIncludes(rowText, "⟨U+202E⟩evil");
      await page.click('button[data-view="text"]');
      await page.waitForSelector("#detail pre.raw");
      await shot(page, "hostile");
      const dom = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: number }).__pwned,
        images: document.querySelectorAll("img").length,
        scripts: [...document.scripts].map((s) => s.src),
        links: [...document.querySelectorAll("#detail a")].map((a) => (a as HTMLAnchorElement).protocol),
      }));
      assertEquals(dom.pwned, undefined);
      assertEquals(dom.images, 0);
      assertEquals(dom.scripts, [`${fx.inspector.url}app.js`]);
      assert.ok(dom.links.every((p) => p === "http:"), `links: ${dom.links}`);
      await new Promise((r) => setTimeout(r, 200));
      assertEquals(canaryHits, 0);
    });

    await t.step("a foreign Host is refused (DNS rebinding), in the browser too", async () => {
      const visit = await browser.newPage();
      const response = await visit.goto(`http://evil.test:${fx.inspector.port}/api/events`);
      assertEquals(response?.status(), 403);
      await visit.close();
    });

    assertEquals(problems, []);
  },
});
