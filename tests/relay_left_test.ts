/**
 * A relayed request whose sender hangs up before the app answers: dev printed the app's status on the
 * request's line as if the sender had got it, and every view said the answer was passed on. Now dev's line
 * says the sender left, and `logs`, `inspect` and the HAR export say the answer reached no one. Telling it
 * reads `request.signal`, which Deno.serve's legacy abort answers with a warning on stderr; every launcher
 * runs dev with `--unstable-no-legacy-abort` (tests/dev_flags_test.ts), so none is printed. Real `dev`, a
 * real app over loopback, a raw sender that hangs up, the CLI as subprocesses.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";

Deno.test({
  name:
    "a relayed sender that hangs up before the app answers: dev and every view say it left, with no warning",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.body?.cancel();
      if (new URL(req.url).pathname === "/slow") await new Promise((r) => setTimeout(r, 1500));
      return new Response("from the app", { headers: { "content-type": "text/plain" } });
    });
    try {
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, ui: false, endpoints: [{ name: "r", path: "/r/:case", method: "POST",\n` +
          `  forward: { to: "http://127.0.0.1:${app.addr.port}/:case", mode: "relay", timeout: 5000 } }] };\n`,
      );
      await using dev = await startDev(tmp.path);
      // A sender that waits gets the app's answer.
      const waited = await fetch(`${dev.url}/r/fast`, { method: "POST", body: "{}" });
      assert.equal(waited.status, 200);
      assert.equal(await waited.text(), "from the app");
      const waitedId = waited.headers.get("x-hooktap-event-id")!;

      // A sender that hangs up 300 ms into the app's 1.5 s.
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: dev.port });
      await conn.write(
        new TextEncoder().encode("POST /r/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"),
      );
      await new Promise((r) => setTimeout(r, 300));
      conn.close();
      await until(() => /\(relayed; the sender had hung up/.test(dev.stdout()), "the delivery line", 10_000)
        .catch((error) => {
          throw new Error(`${error.message}:\n${dev.stdout()}\n${dev.stderr()}`);
        });
      const out = dev.stdout();
      const slowLine = out.split("\n").find((l) => / POST +\/r\/slow/.test(l)) ?? "";
      assert.match(slowLine, /\/r\/slow +left /, out);
      assert.doesNotMatch(slowLine, / 200 /);
      const id = slowLine.match(/evt_\w+/)?.[0];
      assert.ok(id !== undefined, slowLine);
      assert.match(
        out,
        new RegExp(
          `<-- \\[200\\] POST \\S+/slow .*\\[${id}\\] [\\d.]+ ms \\(relayed; the sender had hung up`,
        ),
      );
      assert.equal(await dev.stop(), 0);
      assert.doesNotMatch(dev.stderr(), /legacy|request\.signal/, "no warning from Deno.serve");

      const logs = await runCli(["logs"], { cwd: tmp.path });
      const lines = logs.stdout.split("\n");
      assert.match(lines.find((l) => l.includes(id!)) ?? "", /→ 200 \(sender left\)/);
      assert.match(lines.find((l) => l.includes(waitedId)) ?? "", /→ 200(?! \()/);
      const inspect = await runCli(["inspect", id!], { cwd: tmp.path });
      assert.match(inspect.stdout, /relay, .*the sender had hung up before the answer: it reached no one/);
      const har = await runCli(["export", "--format", "har"], { cwd: tmp.path });
      const entries: { comment: string; response: { status: number } }[] = JSON.parse(har.stdout).log.entries;
      assert.equal(entries.find((e) => e.comment.includes(id!))?.response.status, 0);
      assert.equal(entries.find((e) => e.comment.includes(waitedId))?.response.status, 200);
    } finally {
      await app.shutdown();
    }
  },
});
