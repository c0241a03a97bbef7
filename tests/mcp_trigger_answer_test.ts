/**
 * `hooktap mcp`'s `trigger` returns the start of the receiver's answer as `replay` does: text when it is
 * UTF-8 (a character cut at the preview's end left out, not turned into U+FFFD), and `binary: true` with no
 * `body` when it is not (it was decoded as UTF-8 into replacement characters and control bytes).
 */
import assert from "node:assert/strict";
import { withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";

Deno.test({
  name:
    "hooktap mcp: trigger's answer body is text when UTF-8 (cut between characters), binary: true when not",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
    );
    const binary = new Uint8Array(5000).map((_, i) => (i * 131 + 7) % 256); // not UTF-8
    const text = "é".repeat(3000); // 6000 bytes: the 4096-byte preview ends inside no character
    const odd = "x" + "é".repeat(3000); // the preview's end splits an é
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      const path = new URL(req.url).pathname;
      if (path === "/bin") return new Response(binary, { status: 500 });
      return new Response(path === "/odd" ? odd : text, { status: 500 });
    });
    try {
      await using mcp = await startMcp(tmp.path);
      const at = (path: string) =>
        mcp.call("trigger", {
          provider: "slack",
          event: "app_mention",
          to: `http://127.0.0.1:${server.addr.port}${path}`,
        });
      const bin = (await at("/bin")).structured!.deliveries[0].answer;
      assert.equal(bin.binary, true);
      assert.equal(bin.body, undefined);
      assert.equal(bin.bodySize, 5000);
      assert.equal(bin.truncated, true);
      for (const [path, whole] of [["/text", text], ["/odd", odd]] as const) {
        const answer = (await at(path)).structured!.deliveries[0].answer;
        assert.equal(answer.binary, undefined);
        assert.doesNotMatch(answer.body, /\ufffd/);
        assert.ok(whole.startsWith(answer.body) && answer.body.length > 2000, path);
        assert.equal(answer.truncated, true);
      }
    } finally {
      await server.shutdown();
    }
  },
});
