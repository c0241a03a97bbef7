/**
 * On the wire (JSON-RPC lines on `hooktap mcp`'s stdout): a long call's progress notifications all come
 * before its answer, and none comes last, just before it. The SDK's client handles a notification a
 * microtask late: one read in the same chunk as the answer finds its request gone, and the client reports
 * "Received a progress notification for an unknown token" as an error (Claude Code and others log it).
 */
import assert from "node:assert/strict";
import { withTmpDir, writeFile } from "./_helpers.ts";
import { mcpArgs } from "./_mcp_client.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

/** Every message `hooktap mcp` writes until the answer to request `id`, for these requests. */
async function wire(cwd: string, requests: object[], id: number): Promise<Record<string, unknown>[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: mcpArgs(),
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const messages: Record<string, unknown>[] = [];
  const lines = child.stdout.pipeThrough(new TextDecoderStream());
  let buffer = "";
  await writer.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")));
  try {
    for await (const chunk of lines) {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        messages.push(message);
        if (message.id === id) return messages;
      }
    }
    throw new Error("stdout closed before the answer");
  } finally {
    await writer.close();
    await child.status;
  }
}

Deno.test({
  name: "hooktap mcp on the wire: a bulk replay's progress comes before its answer, none just before it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: ["POST", "PUT"] }] };\n`,
    );
    await Deno.mkdir(`${tmp.path}/.hooktap`);
    await Deno.writeTextFile(`${tmp.path}/.hooktap/events.jsonl`, logText(makeEvents(4)));
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      return new Response("ok");
    });
    try {
      const messages = await wire(tmp.path, [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "wire", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "replay",
            arguments: { endpoint: "default", to: `http://127.0.0.1:${app.addr.port}/hook` },
            _meta: { progressToken: "p" },
          },
        },
      ], 2);
      const answer = messages.at(-1) as { result: { structuredContent: { sent: number } } };
      assert.equal(answer.result.structuredContent.sent, 4);
      const progress = messages
        .filter((m) => m.method === "notifications/progress")
        .map((m) => (m.params as { message: string }).message);
      // Each send but the last (the answer tells of it): 1 of 4, 2 of 4, 3 of 4.
      assert.deepEqual(progress.map((p) => p.replace(/: evt_\w+$/, "")), [
        "sent 1 of 4",
        "sent 2 of 4",
        "sent 3 of 4",
      ]);
    } finally {
      await app.shutdown();
    }
  },
});

Deno.test({
  name:
    "hooktap mcp on the wire: trigger with retries tells of each delivery as the next goes out, none just before the answer",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
    );
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.arrayBuffer();
      return new Response("down", { status: 503 });
    });
    try {
      const to = `http://127.0.0.1:${app.addr.port}/slack`;
      const messages = await wire(tmp.path, [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "wire", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "trigger",
            arguments: { provider: "slack", event: "app_mention", retries: 2, to },
            _meta: { progressToken: 7 },
          },
        },
      ], 2);
      const answer = messages.at(-1) as { result: { structuredContent: { deliveries: unknown[] } } };
      assert.equal(answer.result.structuredContent.deliveries.length, 3);
      const progress = messages
        .filter((m) => m.method === "notifications/progress")
        .map((m) => (m.params as { message: string }).message)
        .filter((p) => !p.includes("waits for")); // a heartbeat, should a wait outlast 5 s on a busy machine
      assert.deepEqual(progress, [
        `sent 1 delivery, the last app_mention → ${to}: 503`,
        `sent 2 deliveries, the last app_mention (retry) → ${to}: 503`,
      ]);
    } finally {
      await app.shutdown();
    }
  },
});
