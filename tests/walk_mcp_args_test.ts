/**
 * `hooktap mcp` refuses an argument a tool does not take, as the CLI refuses an unknown option ("every
 * option honoured or refused"): found by a walk with the official SDK client, where `wait_for_event` with
 * `timeout` (the tool takes `timeout_seconds`) waited its default 30 s and `search_events` with `limt`
 * listed everything, both without a word. Driven by the official MCP SDK client over stdio.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliArgs, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const PERMISSIONS = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"];

Deno.test({
  name: "hooktap mcp: a tool's schema allows no other argument, and an unknown one is a tool error naming it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
    );
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: cliArgs(PERMISSIONS, ["mcp"]),
      cwd: tmp.path,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "hooktap-walk", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} takes no other argument`);
      }
      const started = Date.now();
      const wait = await client.callTool({
        name: "wait_for_event",
        arguments: { endpoint: "gh", timeout: 1 },
      });
      assert.equal(wait.isError, true);
      const text = (wait.content as { text: string }[]).map((c) => c.text).join("\n");
      assert.match(text, /Unrecognized key: "timeout"/);
      assert.ok(Date.now() - started < 10_000, "refused at once, not after the default 30 s wait");
      const search = await client.callTool({ name: "search_events", arguments: { limt: 1 } });
      assert.equal(search.isError, true);
      assert.match((search.content as { text: string }[])[0]!.text, /"limt"/);
      // The arguments a tool takes still work.
      const ok = await client.callTool({ name: "search_events", arguments: { limit: 1, endpoint: "gh" } });
      assert.notEqual(ok.isError, true, JSON.stringify(ok.content));
    } finally {
      await client.close();
    }
  },
});

Deno.test({
  name: "hooktap mcp: wait_for_event refuses an endpoint the config does not have, naming those it has",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
    );
    await using dev = await startDev(tmp.path);
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: cliArgs(PERMISSIONS, ["mcp"]),
      cwd: tmp.path,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "hooktap-walk", version: "1.0.0" });
    await client.connect(transport);
    try {
      const started = Date.now();
      const r = await client.callTool({
        name: "wait_for_event",
        arguments: { endpoint: "gh2", timeout_seconds: 20 },
      });
      assert.equal(r.isError, true);
      assert.match(
        (r.content as { text: string }[])[0]!.text,
        /endpoint "gh2": the config has no endpoint .*"gh"/,
      );
      assert.ok(Date.now() - started < 10_000, "refused at once, not after the wait");
      // A configured endpoint still waits, and finds what arrives.
      const waiting = client.callTool({
        name: "wait_for_event",
        arguments: { endpoint: "gh", timeout_seconds: 20 },
      });
      await new Promise((r) => setTimeout(r, 500));
      const sent = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
      assert.equal(sent.status, 200);
      await sent.body?.cancel();
      const got = await waiting;
      assert.notEqual(got.isError, true, JSON.stringify(got.content));
      assert.equal((got.structuredContent as { found: boolean }).found, true);
    } finally {
      await client.close();
    }
    assert.equal(await dev.stop(), 0);
  },
});

/** Sends `requests` (JSON-RPC lines) to `hooktap mcp` on its stdin and returns its answers by id. */
// deno-lint-ignore no-explicit-any
async function rawCalls(cwd: string, requests: Record<string, unknown>[]): Promise<Map<unknown, any>> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(PERMISSIONS, ["mcp"]),
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  // deno-lint-ignore no-explicit-any
  const answers = new Map<unknown, any>();
  const wanted = requests.filter((r) => "id" in r).map((r) => r.id);
  for (const request of requests) {
    await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
  }
  let buffered = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      const answer = JSON.parse(line);
      answers.set(answer.id, answer);
    }
    if (wanted.every((id) => answers.has(id))) break;
  }
  await writer.close();
  await child.status;
  return answers;
}

Deno.test({
  name:
    'hooktap mcp: tools/call with "arguments": null is a call without arguments, not a -32603 internal error',
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
    );
    const call = (id: number, name: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: null },
    });
    const answers = await rawCalls(tmp.path, [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      call(2, "search_events"),
      call(3, "get_event"),
    ]);
    // A tool that needs no argument answers as for `{}`.
    const search = answers.get(2);
    assert.equal(search.error, undefined, JSON.stringify(search.error));
    assert.notEqual(search.result.isError, true, JSON.stringify(search.result));
    assert.deepEqual(search.result.structuredContent, { events: [] });
    // One that needs an argument names it, as for a call without any.
    const get = answers.get(3);
    assert.equal(get.error, undefined, JSON.stringify(get.error));
    assert.equal(get.result.isError, true);
    assert.match(get.result.content[0].text, /get_event: .* at id/);
  },
});
