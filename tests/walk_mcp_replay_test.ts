/**
 * `hooktap mcp`'s `replay` reports a refused re-sign as a refusal, not a send: found by a walk with the
 * official SDK client, where `resign: true` on an unsigned event (and on one whose signature was invalid)
 * answered "Replayed 1 event: 0 answered 2xx, 1 not" with `sent: 1` and no `isError`, though nothing went
 * out. And `hooktap mcp --config nosuch.ts` refuses at start, as every command refuses a missing --config.
 * The real CLI as subprocesses in a temp project, a real app on loopback.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliArgs, runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

const PERMISSIONS = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"];

type Answer = { isError: boolean; text: string; structured: Record<string, unknown> | undefined };

Deno.test({
  name: "hooktap mcp replay: a refused re-sign is a tool error with the reason, sent 0, and nothing is sent",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
    );
    const [unsigned, other, invalid] = makeEvents(3);
    invalid!.verdict = {
      status: "invalid",
      scheme: "github-sha256",
      reason: "the signature does not match.",
    };
    await writeFile(tmp.path, ".hooktap/events.jsonl", logText([unsigned!, other!, invalid!]));
    let got = 0;
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      got++;
      return new Response("ok");
    });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: cliArgs(PERMISSIONS, ["mcp"]),
      cwd: tmp.path,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "hooktap-walk", version: "1.0.0" });
    await client.connect(transport);
    const call = async (args: Record<string, unknown>): Promise<Answer> => {
      const r = await client.callTool({ name: "replay", arguments: args });
      return {
        isError: r.isError === true,
        text: (r.content as { text: string }[]).map((c) => c.text).join("\n"),
        structured: r.structuredContent as Answer["structured"],
      };
    };
    const to = `http://127.0.0.1:${app.addr.port}/hook`;
    try {
      const one = await call({ id: unsigned!.id, to, resign: true });
      assert.equal(one.isError, true, one.text);
      assert.match(
        one.text,
        new RegExp(`Cannot re-sign ${unsigned!.id}: hooktap did not recognise a signature`),
      );
      assert.doesNotMatch(one.text, /Replayed 1 event/);
      assert.equal(one.structured?.sent, 0);
      assert.equal(one.structured?.refused, 1);

      const bad = await call({ id: invalid!.id, to, resign: true });
      assert.equal(bad.isError, true, bad.text);
      assert.match(bad.text, new RegExp(`Refusing to re-sign ${invalid!.id}: its signature was invalid`));
      // mcp has no --resign-invalid: the message offers only what the tool can do.
      assert.doesNotMatch(bad.text, /--resign-invalid/);
      assert.equal(bad.structured?.sent, 0);

      // Bulk: every match refused, none sent, said so.
      const bulk = await call({ endpoint: "default", to, resign: true });
      assert.equal(bulk.isError, true, bulk.text);
      assert.equal(bulk.structured?.sent, 0);
      assert.equal(bulk.structured?.refused, 3);
      assert.match(bulk.text, /Replayed 0 events: 0 answered 2xx; 3 refused, not sent/);
      assert.equal(got, 0, "nothing reached the app");

      // Without resign they go out, as before.
      const plain = await call({ id: unsigned!.id, to });
      assert.equal(plain.isError, false, plain.text);
      assert.equal(plain.structured?.sent, 1);
      assert.equal(plain.structured?.ok, 1);
      assert.equal(plain.structured?.refused, 0);
      assert.equal(got, 1);
      const deliveries = await Deno.readTextFile(`${tmp.path}/.hooktap/deliveries.jsonl`);
      assert.equal(deliveries.trim().split("\n").length, 1, "only the send that went out is recorded");
    } finally {
      await client.close();
      await app.shutdown();
    }
  },
});

Deno.test("hooktap mcp --config nosuch.ts refuses at start, as every command refuses a missing --config", async () => {
  await using tmp = await withTmpDir();
  const mcp = await runCli(["mcp", "--config", "nosuch.ts"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
    stdin: "",
    timeoutMs: 30_000,
  });
  const logs = await runCli(["trigger", "github", "push", "--config", "nosuch.ts"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
  });
  assert.equal(mcp.timedOut, undefined);
  assert.equal(logs.code, 78, logs.stderr);
  assert.equal(mcp.code, logs.code, mcp.stderr);
  assert.match(mcp.stderr, /Config file .*nosuch\.ts does not exist\.\n {2}- check the --config path/);
  assert.equal(mcp.stderr, logs.stderr);
  assert.equal(mcp.stdout, "", "stdout is the protocol's");
});
