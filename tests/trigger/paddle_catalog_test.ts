/**
 * Every Paddle entry, as `trigger` sends it, through Paddle's official SDK:
 * `webhooks.unmarshal` verifies and parses it into the event's own class
 * (not the SDK's GenericEvent), and its `data` type-checks against the SDK's
 * declared notification type (a generated check file run through `deno check`).
 */
import assert from "node:assert/strict";
import { Paddle } from "@paddle/paddle-node-sdk";
import { catalog } from "../../src/providers/paddle/catalog.ts";
import { PADDLE_EVENTS } from "../../src/providers/paddle/samples/events.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "pdl_ntfset_01hooktap_secret";
const paddle = new Paddle("pdl_sdbx_apikey_01hooktap0000000000000000_hooktaphooktaphooktap_hk0");

Deno.test("Paddle's catalog covers every event of the SDK's EventName (56), each parsed by webhooks.unmarshal", async () => {
  assert.ok(catalog.events.length >= 56, `${catalog.events.length} events`);
  assert.match(catalog.source, /^generated from @paddle\/paddle-node-sdk@\d+\.\d+\.\d+$/);
  await using server = startRawServer();
  const failures: string[] = [];
  for (const event of catalog.events) {
    await trigger({ provider: "paddle", event, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    const text = new TextDecoder().decode(r.body);
    const sig = r.headers.find(([k]) => k.toLowerCase() === "paddle-signature")![1];
    try {
      const parsed = await paddle.webhooks.unmarshal(text, SECRET, sig);
      if (parsed.eventType !== event) failures.push(`${event}: parsed as ${parsed.eventType}`);
      if (parsed.constructor.name === "GenericEvent") failures.push(`${event}: parsed as a GenericEvent`);
      if (typeof (parsed.data as { id?: unknown }).id !== "string") failures.push(`${event}: data has no id`);
    } catch (error) {
      failures.push(`${event}: ${error instanceof Error ? error.message : error}`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("every Paddle entry's data type-checks against the SDK's declared notification type", async () => {
  await using server = startRawServer();
  const types = new Set(PADDLE_EVENTS.map(([, t]) => t));
  let code = `import type { ${[...types].sort().join(", ")} } from "@paddle/paddle-node-sdk";\n`;
  for (const [i, [event, type]] of PADDLE_EVENTS.entries()) {
    await trigger({ provider: "paddle", event, to: server.url, secret: SECRET });
    const body = JSON.parse(new TextDecoder().decode(server.requests.at(-1)!.body));
    code += `// ${event}\nexport const e${i}: ${type} = ${JSON.stringify(body.data)};\n`;
  }
  const root = new URL("../../", import.meta.url);
  const file = new URL(`tests/trigger/.paddle_check_${crypto.randomUUID()}.ts`, root);
  await Deno.writeTextFile(file, code);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file.pathname],
      cwd: root.pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err.slice(0, 4000));
  } finally {
    await Deno.remove(file);
  }
});
