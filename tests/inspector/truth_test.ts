/// <reference lib="dom" />
/**
 * What the inspector page shows and sends is true to the stored bytes, in a
 * real Chromium: the JSON tree keeps numbers as sent and repeated keys, a
 * body nested too deep for the tree does not hide the event, header values
 * read as `hooktap inspect` reads them, "Copy as curl" sends the exact
 * request when run by `sh` (never a local file for a body starting with
 * `@`), replay of an unedited CR LF body keeps its bytes (the app's
 * @octokit/webhooks verify passes), and a page whose session ended (hooktap
 * restarted) says so.
 */
import { Webhooks } from "@octokit/webhooks";
import { sign } from "@octokit/webhooks-methods";
import type { HTTPRequest, Page } from "puppeteer-core";
import { buildEvent, type CapturedEvent, eventLine } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { type Inspector, startInspector } from "../../src/inspector/server.ts";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { launchChromium } from "./_browser.ts";
import { inspectorFixture } from "./_fixture.ts";
import { runCli } from "../_helpers.ts";

const enc = new TextEncoder();
const SECRET = "It's a Secret to Everybody";
/** A GitHub ping with CR LF line breaks (as a Windows-built sender sends it). */
const CRLF_BODY = '{\r\n  "zen": "Keep it logically awesome.",\r\n  "hook_id": 42\r\n}';
const NUMBERS = '{"big":12345678901234567890,"id":9007199254740993,"f":1.0,"e":1e2,"dup":1,"dup":2}';
const DEEP = "[".repeat(20_000) + "]".repeat(20_000);
const BINARY = new Uint8Array([0xff, 0x00, 0x27, 0x25, 0x5c, 0x0a, 0x80, 0x1b]);

const newId = createIdFactory();
function event(
  body: string | Uint8Array,
  headers: [string, string][],
  more: { query?: string; method?: string } = {},
): CapturedEvent {
  const at = new Date(Date.now() - 60_000);
  return buildEvent({
    id: newId(at),
    endpoint: "github",
    receivedAt: at,
    method: more.method ?? "POST",
    path: "/hooks/github",
    query: more.query ?? "",
    headers: [["host", "localhost:8787"], ...headers],
    body: typeof body === "string" ? enc.encode(body) : body,
    remoteAddr: "127.0.0.1",
  });
}

async function open(page: Page, id: string): Promise<void> {
  await page.click(`#rows tr[data-id="${id}"]`);
  await page.waitForSelector(`#detail article[data-id="${id}"]`);
}

/** An app that checks GitHub's signature with @octokit/webhooks, as a real one does. */
function githubApp() {
  const webhooks = new Webhooks({ secret: SECRET });
  const got: { body: Uint8Array; verified: boolean }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const signature = request.headers.get("x-hub-signature-256") ?? "";
    const verified = await webhooks.verify(new TextDecoder().decode(body), signature).catch(() => false);
    got.push({ body, verified });
    return new Response(verified ? "verified" : "bad signature", { status: verified ? 200 : 401 });
  });
  return Object.assign(server, { got, url: `http://127.0.0.1:${server.addr.port}/webhooks/github` });
}

Deno.test({
  name: "the inspector page is true to the stored bytes, in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const ping = event(CRLF_BODY, [
      ["content-type", "application/json"],
      ["x-github-event", "ping"],
      ["x-hub-signature-256", await sign(SECRET, CRLF_BODY)],
    ]);
    const numbers = event(NUMBERS, [["content-type", "application/json"]]);
    const deep = event(DEEP, [["content-type", "application/json"], ["x-after-body", "still shown"]]);
    // Header bytes as they came: UTF-8 `José` and a right-to-left override, one byte per character.
    const utf8 = event("{}", [
      ["x-name", String.fromCharCode(...enc.encode("José"))],
      ["x-file", String.fromCharCode(...enc.encode("invoice\u202Egnp.exe"))],
    ]);
    const secretFile = await Deno.makeTempFile({ prefix: "hooktap_secret_" });
    await Deno.writeTextFile(secretFile, "PRIVATE KEY");
    const atFile = event(`@${secretFile}`, [["content-type", "text/plain"]], { query: "a[0]=1&b={x}" });
    const binary = event(BINARY, [["content-type", "application/octet-stream"]], { method: "PUT" });
    const items = Array.from({ length: 40_000 }, (_, i) => ({ i, tags: { a: [i] } }));
    const large = event(JSON.stringify(items), [["content-type", "application/json"]]);
    // Forwarded, not yet answered: pending until the app takes it.
    const waiting = event('{"action":"closed"}', [["content-type", "application/json"]]);
    waiting.forward = { to: "http://127.0.0.1:9/webhooks/github", mode: "queue" };
    await using fx = await inspectorFixture({
      events: [ping, numbers, deep, utf8, atFile, binary, large, waiting],
    });
    await using app = githubApp();
    await using browser = await launchChromium();
    await browser.defaultBrowserContext().overridePermissions(fx.inspector.url.slice(0, -1), [
      "clipboard-read",
      "clipboard-write",
      "clipboard-sanitized-write",
    ]);
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
    await page.goto(fx.inspector.openUrl, { waitUntil: "load" });
    await page.waitForFunction(() => document.querySelectorAll("#rows tr[data-id]").length === 8);

    await t.step("the JSON tree shows numbers as sent and each repeat of a key", async () => {
      await open(page, numbers.id);
      const leaves = await page.$$eval("#detail .body-view .leaf", (ls) => ls.map((l) => l.textContent));
      assertEquals(leaves, [
        '"big": 12345678901234567890',
        '"id": 9007199254740993',
        '"f": 1.0',
        '"e": 1e2',
        '"dup": 1',
        '"dup": 2',
      ]);
      assertEquals(await page.$$eval("#detail .key.repeated", (ks) => ks.length), 2);
    });

    await t.step(
      "a body nested deeper than the tree goes still shows the event, the rest as text",
      async () => {
        await open(page, deep.id);
        assertIncludes(await page.$eval("#detail", (d) => d.textContent!), "still shown"); // the headers
        // Open each level in turn (a level's children are made when it opens).
        for (let level = 0; level < 70; level++) {
          const opened = await page.evaluate(() => {
            const closed = document.querySelector<HTMLDetailsElement>("#detail details.json:not([open])");
            if (closed) closed.open = true;
            return closed !== null;
          });
          if (!opened) break;
          await page.waitForFunction(() =>
            document.querySelector("#detail details.json[open] > .children:empty") === null
          );
        }
        assertIncludes(await page.$eval("#detail", (d) => d.textContent!), "nested deeper than 64 levels");
        assertEquals(await page.$$eval("#detail details.json", (ds) => ds.length), 64);
      },
    );

    await t.step("a large JSON body is shown a part at a time, the rest on demand", async () => {
      await open(page, large.id);
      // 40,000 items: the first 500 made (each open, two leaves), a button for the next.
      assertEquals(await page.$$eval("#detail .body-view details.json[open]", (ds) => ds.length), 1 + 500);
      assertEquals(
        await page.$eval("#detail .json-more", (b) => b.textContent),
        "show 500 more (500 of 40000 shown)",
      );
      await page.click("#detail .json-more");
      assertEquals(await page.$$eval("#detail .body-view details.json[open]", (ds) => ds.length), 1 + 1000);
      assertIncludes(await page.$eval("#detail .json-more", (b) => b.textContent!), "(1000 of 40000 shown)");
      // A folded level (each item's "tags") makes its children only when opened.
      const level4 = "#detail details.json details.json details.json details.json";
      assertEquals(await page.$$eval(level4, (ds) => ds.length), 0);
      await page.click("#detail details.json details.json details.json > summary");
      await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 1, {}, level4);
    });

    await t.step(
      "header values read as hooktap inspect reads them: UTF-8 decoded, controls marked",
      async () => {
        await open(page, utf8.id);
        const cells = await page.$$eval("#detail table.headers td", (tds) => tds.map((td) => td.textContent));
        assertIncludes(cells.join("\n"), "José");
        assertIncludes(cells.join("\n"), "invoice⟨U+202E⟩gnp.exe");
      },
    );

    await t.step("Esc leaves any filter field, a select too, and j moves on", async () => {
      for (const field of ["#q", 'select[name="verdict"]']) {
        await page.focus(field);
        await page.keyboard.press("Escape");
        assertEquals(await page.evaluate(() => document.activeElement?.tagName), "BODY");
      }
      const before = await page.$eval("#rows tr.selected", (tr) => (tr as HTMLElement).dataset.id);
      await page.keyboard.press("j");
      await page.waitForFunction(
        (id) => (document.querySelector("#rows tr.selected") as HTMLElement | null)?.dataset.id !== id,
        {},
        before,
      );
    });

    await t.step("Copy as curl, run by sh, sends the stored request byte for byte", async () => {
      const got: { method: string; url: string; headers: Headers; body: Uint8Array }[] = [];
      await using target = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
        got.push({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: new Uint8Array(await req.arrayBuffer()),
        });
        return new Response("ok");
      });
      const dir = await Deno.makeTempDir({ prefix: "hooktap_curl_" });
      try {
        for (const e of [atFile, binary, ping]) {
          await open(page, e.id);
          await page.click("#copy-curl");
          await page.waitForFunction(() =>
            /Copied the curl command/.test(document.getElementById("status")!.textContent!)
          );
          const copied = await page.evaluate(() => navigator.clipboard.readText());
          // The stored Host is where it arrived; the test's server stands in for it.
          const script = copied.replace("http://localhost:8787", `http://127.0.0.1:${target.addr.port}`);
          await Deno.writeTextFile(`${dir}/send.sh`, script);
          const run = await new Deno.Command("sh", {
            args: ["send.sh"],
            cwd: dir,
            stdout: "null",
            stderr: "piped",
          })
            .output();
          assertEquals(run.code, 0, new TextDecoder().decode(run.stderr));
          const sent = got.at(-1)!;
          assertEquals(sent.body, e.bodyEncoding === "base64" ? BINARY : enc.encode(e.body));
          assertEquals(sent.method, e.method);
          assertEquals(new URL(sent.url).search, e.query === "" ? "" : `?${e.query}`);
          for (const [name, value] of e.headers) {
            if (name !== "host") assertEquals(sent.headers.get(name), value);
          }
          // curl added nothing the sender did not send.
          assertEquals(sent.headers.get("user-agent"), null);
          assertEquals(sent.headers.get("accept"), null);
        }
        assertEquals(got.length, 3);
        const verified = await new Webhooks({ secret: SECRET }).verify(
          new TextDecoder().decode(got[2]!.body),
          got[2]!.headers.get("x-hub-signature-256")!,
        );
        assertEquals(verified, true);
      } finally {
        await Deno.remove(dir, { recursive: true });
        await Deno.remove(secretFile);
      }
    });

    await t.step(
      "replay of an unedited CR LF body keeps its bytes: the app's signature check passes",
      async () => {
        await open(page, ping.id);
        const before = await page.$$eval("#detail table.attempts tr", (trs) => trs.length);
        await page.focus("body");
        await page.keyboard.press("r");
        await page.waitForSelector("#replay-dialog[open]");
        await page.$eval("#replay-to", (el, url) => ((el as HTMLInputElement).value = url), app.url);
        await page.click("#replay-send");
        await page.waitForFunction(() =>
          /verified|bad signature/.test(document.getElementById("replay-result")!.textContent!)
        );
        assertIncludes(await page.$eval("#replay-result", (r) => r.textContent!), "200 OK");
        assertEquals(app.got[0]!.body, enc.encode(CRLF_BODY));
        assertEquals(app.got[0]!.verified, true);
        // Edited headers only: the body still goes as stored.
        await page.$eval("#replay-headers", (el) => ((el as HTMLTextAreaElement).value += "\nx-edited: yes"));
        await page.click("#replay-send");
        await page.waitForFunction(() =>
          !document.querySelector<HTMLButtonElement>("#replay-send")!.disabled
        );
        await page.waitForFunction(() => document.querySelectorAll("#replay-result p.ok").length === 1);
        assertEquals(app.got.length, 2);
        assertEquals(app.got[1]!.verified, true);
        // An edited body keeps the stored CR LF line breaks (the textarea gives LF).
        await page.$eval("#replay-body", (el) => {
          const area = el as HTMLTextAreaElement;
          area.value = area.value.replace("42", "43");
        });
        await page.click("#replay-send");
        await page.waitForFunction(() => /401/.test(document.getElementById("replay-result")!.textContent!));
        assertEquals(app.got[2]!.body, enc.encode(CRLF_BODY.replace("42", "43")));
        await page.keyboard.press("Escape");
        // The detail lists the replays, as `hooktap inspect` does.
        await page.waitForFunction(
          (n) => document.querySelectorAll("#detail table.attempts tr").length > n,
          {},
          before,
        );
      },
    );

    await t.step("a row's delivery state follows the deliveries log, as hooktap logs does", async () => {
      const cell = (id: string) =>
        page.$eval(`#rows tr[data-id="${id}"] td:nth-child(7)`, (td) => td.textContent);
      assertEquals(await cell(waiting.id), "pending");
      await open(page, waiting.id);
      // dev delivers it: its attempt is appended to the deliveries log.
      const record = {
        v: 2,
        id: `dlv_${waiting.id.slice(4, 12)}_${"0".repeat(25)}1`,
        event: waiting.id,
        endpoint: waiting.endpoint,
        source: "forward",
        target: "127.0.0.1:9/webhooks/github",
        url: waiting.forward!.to,
        method: "POST",
        attempt: 1,
        startedAt: new Date().toISOString(),
        durationMs: 3,
        outcome: "delivered",
        status: 200,
        statusText: "OK",
      };
      await Deno.writeTextFile(`${fx.paths.dir}/deliveries.jsonl`, JSON.stringify(record) + "\n", {
        append: true,
      });
      await page.waitForFunction(
        (id) =>
          document.querySelector(`#rows tr[data-id="${id}"] td:nth-child(7)`)?.textContent === "delivered",
        { timeout: 10_000 },
        waiting.id,
      );
      // The open event is read again too.
      await page.waitForFunction(() =>
        /Delivery · delivered/i.test(document.getElementById("detail")!.textContent!)
      );
    });

    let restarted: Inspector = fx.inspector;
    await t.step("after hooktap restarts, the page lists the events stored while it was away", async () => {
      const port = fx.inspector.port;
      await fx.inspector.stop();
      // Stored while no inspector ran: no live message will ever tell of it.
      const missed = event('{"while":"away"}', [["content-type", "application/json"]]);
      missed.receivedAt = new Date().toISOString();
      await Deno.writeTextFile(fx.paths.events, eventLine(missed), { append: true });
      restarted = startInspector({ paths: fx.paths, port, tokenFiles: false });
      // The new link opened in another tab: this browser holds the new session's cookie.
      await browser.setCookie({
        name: `hooktap_inspector_${port}`,
        value: restarted.token,
        domain: "127.0.0.1",
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
      });
      await page.waitForSelector(`#rows tr[data-id="${missed.id}"]`, { timeout: 15_000 });
      const ids = await page.$$eval(
        "#rows tr[data-id]",
        (rows) => rows.map((r) => (r as HTMLElement).dataset.id!),
      );
      assertEquals(ids[0], missed.id); // newest first, once
      assertEquals(new Set(ids).size, ids.length);
    });

    await t.step("a page whose session ended (hooktap restarted: a new token) says so", async () => {
      const port = restarted.port;
      await restarted.stop();
      const again = startInspector({ paths: fx.paths, port, tokenFiles: false });
      try {
        await page.waitForFunction(() => document.body.dataset.live === "ended", { timeout: 15_000 });
        assertIncludes(
          await page.$eval("#status", (s) => s.textContent!),
          "open the link hooktap printed last",
        );
        // The new link opened in another tab: the page goes on by itself.
        await browser.setCookie({
          name: `hooktap_inspector_${port}`,
          value: again.token,
          domain: "127.0.0.1",
          path: "/",
          httpOnly: true,
          sameSite: "Strict",
        });
        await page.waitForFunction(() => document.body.dataset.live === "on", { timeout: 15_000 });
        assertIncludes(await page.$eval("#status", (s) => s.textContent!), "events");
      } finally {
        await again.stop();
      }
    });

    assertEquals(problems, []);
  },
});

Deno.test({
  name: "an event stored before the page's live stream listened is listed, once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const first = event("{}", [["content-type", "application/json"]]);
    await using fx = await inspectorFixture({ events: [first] });
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    // The stream connects late (a busy machine): held until the first page is read.
    await page.setRequestInterception(true);
    let held: HTTPRequest | undefined;
    page.on("request", (request) => {
      if (request.url().includes("/api/stream") && held === undefined) held = request;
      else void request.continue();
    });
    await page.goto(fx.inspector.openUrl, { waitUntil: "load" });
    await page.waitForSelector(`#rows tr[data-id="${first.id}"]`);
    // Stored after the page was read, before the stream subscribed: no live message tells of it.
    const between = event('{"between":true}', [["content-type", "application/json"]]);
    between.receivedAt = new Date().toISOString();
    await Deno.writeTextFile(fx.paths.events, eventLine(between), { append: true });
    while (held === undefined) await new Promise((r) => setTimeout(r, 20));
    await held.continue();
    await page.waitForSelector(`#rows tr[data-id="${between.id}"]`, { timeout: 10_000 });
    const later = event('{"later":true}', [["content-type", "application/json"]]);
    later.receivedAt = new Date().toISOString();
    await fx.add(later);
    await page.waitForSelector(`#rows tr[data-id="${later.id}"]`);
    const ids = await page.$$eval(
      "#rows tr[data-id]",
      (rows) => rows.map((r) => (r as HTMLElement).dataset.id!),
    );
    assertEquals(ids, [later.id, between.id, first.id]);
    assertEquals(problems, []);
  },
});

Deno.test({
  name: "the detail says what hooktap inspect says of deliveries: a try nothing listened to, sends elsewhere",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const forwarded = event('{"action":"opened"}', [["content-type", "application/json"]]);
    forwarded.forward = { to: "http://127.0.0.1:3000/webhooks/github", mode: "queue" };
    await using fx = await inspectorFixture({ events: [forwarded] });
    const base = {
      v: 2,
      event: forwarded.id,
      endpoint: forwarded.endpoint,
      method: "POST",
      startedAt: forwarded.receivedAt,
      durationMs: 2,
    };
    const records = [
      // dev's try while the app was down: no attempt spent, the event waited.
      {
        ...base,
        id: `dlv_${forwarded.id.slice(4, 12)}_${"0".repeat(25)}1`,
        source: "forward",
        target: "127.0.0.1:3000/webhooks/github",
        url: forwarded.forward.to,
        attempt: 1,
        outcome: "retrying",
        error: "nothing listens on 127.0.0.1:3000",
        refused: true,
      },
      {
        ...base,
        id: `dlv_${forwarded.id.slice(4, 12)}_${"0".repeat(25)}2`,
        source: "forward",
        target: "127.0.0.1:3000/webhooks/github",
        url: forwarded.forward.to,
        attempt: 1,
        outcome: "delivered",
        status: 200,
        statusText: "OK",
      },
      // Replayed by hand to another URL: its own delivery, not the forward state.
      {
        ...base,
        id: `dlv_${forwarded.id.slice(4, 12)}_${"0".repeat(25)}3`,
        source: "replay",
        target: "127.0.0.1:4000/other",
        url: "http://127.0.0.1:4000/other",
        attempt: 1,
        outcome: "failed",
        status: 500,
        statusText: "Internal Server Error",
      },
    ];
    await Deno.writeTextFile(
      `${fx.paths.dir}/deliveries.jsonl`,
      records.map((r) => JSON.stringify(r) + "\n").join(""),
      {
        append: true,
      },
    );
    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(fx.inspector.openUrl, { waitUntil: "load" });
    await page.waitForSelector(`#rows tr[data-id="${forwarded.id}"]`);
    await open(page, forwarded.id);
    const rows = await page.$$eval(
      "#detail table.attempts tr:not(.answer)",
      (trs) => trs.slice(1).map((tr) => [...tr.children].map((td) => td.textContent)),
    );
    assertEquals(rows.map((r) => [r[0], r[5], r[6]]), [
      ["–", "nothing listens on 127.0.0.1:3000 (no attempt spent)", "waits for the app"],
      ["1", "200 OK", "delivered"],
      ["1", "500 Internal Server Error", "failed"],
    ]);
    assertEquals(
      await page.$eval("#targets", (ul) => ul.textContent),
      "127.0.0.1:3000/webhooks/github: delivered (200, 1 attempt)",
    );
    assertEquals(
      await page.$eval("#others li", (li) => li.textContent),
      "127.0.0.1:4000/other: failed (500, 1 replay)",
    );
    // Not "to another URL": a plain `replay ID` of an event no rule took is a send elsewhere too.
    assertEquals(
      await page.$eval("#others p", (p) => p.textContent),
      "Sent elsewhere (not a forward target of this event: not its forward state)",
    );
    // The same as `hooktap inspect` says.
    const inspect = await runCli(["inspect", forwarded.id], { cwd: fx.dir });
    assertEquals(inspect.code, 0, inspect.stderr);
    assertIncludes(inspect.stdout, "127.0.0.1:3000/webhooks/github: delivered (200, 1 attempt)");
    assertIncludes(inspect.stdout, "127.0.0.1:4000/other: failed (500, 1 replay)");
    assertIncludes(
      inspect.stdout,
      "Sent elsewhere (not a forward target of this event: not its forward state)",
    );
    assertIncludes(inspect.stdout, "no attempt spent");
  },
});

Deno.test({
  name: "without the clipboard, Copy shows the text to copy by hand: one box, the last thing asked for",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const one = event('{"a":1}', [["content-type", "application/json"]]);
    await using fx = await inspectorFixture({ events: [one] });
    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(fx.inspector.openUrl, { waitUntil: "load" });
    await page.waitForSelector(`#rows tr[data-id="${one.id}"]`);
    await open(page, one.id);
    // The browser refuses the clipboard (no permission given, as a page not in focus gets).
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    });
    await page.click("#copy-curl");
    await page.waitForSelector("#copy-fallback");
    await page.click("#copy-id");
    await page.waitForFunction(() =>
      (document.getElementById("copy-fallback") as HTMLTextAreaElement | null)?.value.startsWith("evt_")
    );
    assertEquals(await page.$$eval("textarea.copy", (areas) => areas.length), 1);
    assertEquals(await page.$eval("#copy-fallback", (area) => (area as HTMLTextAreaElement).value), one.id);
  },
});
