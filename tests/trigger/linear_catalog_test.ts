/**
 * Every Linear entry, as `trigger` sends it: verified and parsed by
 * `@linear/sdk`'s LinearWebhookClient (signature, and the signed
 * webhookTimestamp within 60 s), and type-valid against the SDK's payload
 * type (a generated file run through `deno check`).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { catalog } from "../../src/providers/linear/catalog.ts";
import { LINEAR_EVENTS } from "../../src/providers/linear/samples/events.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "lin_wh_hooktap_secret";

Deno.test("Linear's catalog: all 20 webhook types of @linear/sdk, each parsed by its client and type-valid", async () => {
  assert.match(catalog.source, /^generated from @linear\/sdk@\d+\.\d+\.\d+$/);
  const types = new Set(catalog.events.map((e) => e.slice(0, e.indexOf("."))));
  assert.ok(types.size >= 20, `${types.size} types`);
  const client = new LinearWebhookClient(SECRET);
  await using server = startRawServer();
  const failures: string[] = [];
  const payloadTypes = new Set<string>();
  let code = "";
  for (const [i, event] of catalog.events.entries()) {
    await trigger({ provider: "linear", event, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    const sig = r.headers.find(([k]) => k.toLowerCase() === "linear-signature")![1];
    try {
      const parsed = client.parseData(Buffer.from(r.body), sig) as { type: string; action: string };
      if (`${parsed.type}.${parsed.action}` !== event) failures.push(`${event}: parsed as ${parsed.type}`);
    } catch (error) {
      failures.push(`${event}: ${error instanceof Error ? error.message : error}`);
    }
    const t = LINEAR_EVENTS[event]!.payload;
    payloadTypes.add(t);
    code += `export const e${i}: Json<${t}> = ${new TextDecoder().decode(r.body)};\n`;
  }
  assert.deepEqual(failures, []);
  const root = new URL("../../", import.meta.url);
  const file = new URL(`tests/trigger/.linear_check_${crypto.randomUUID()}.ts`, root);
  await Deno.writeTextFile(
    file,
    `import type { ${[...payloadTypes].sort().join(", ")} } from "@linear/sdk/webhooks";\n` +
      // The JSON form of a declared type: the SDK declares times as Date, which JSON carries as strings.
      "type Json<T> = T extends Date ? string : T extends readonly (infer U)[] ? Json<U>[] : " +
      "T extends object ? { [K in keyof T]: Json<T[K]> } : T;\n" + code,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file.pathname],
      cwd: root.pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr).slice(0, 4000));
  } finally {
    await Deno.remove(file);
  }
});
