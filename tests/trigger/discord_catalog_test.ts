/**
 * Every Discord entry, as `trigger` sends it: verified by
 * discord-interactions' verifyKey with the trigger key's public half, and
 * each webhook event type-valid against discord-api-types' APIWebhookEvent
 * (a generated file run through `deno check`).
 */
import assert from "node:assert/strict";
import { catalog } from "../../src/providers/discord/catalog.ts";
import { DISCORD_EVENTS } from "../../src/providers/discord/samples/events.gen.ts";
import { makeTriggerKeys, publicKeyFor } from "../../src/trigger/keys.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

Deno.test("Discord's catalog: 5 interactions and every webhook event of discord-api-types, verified and type-valid", async () => {
  assert.match(catalog.source, /^generated from discord-api-types@\d+\.\d+\.\d+$/);
  const webhooks = catalog.events.filter((e) => DISCORD_EVENTS[e] !== undefined);
  assert.ok(webhooks.length >= 7, `${webhooks.length} webhook events`);
  const keys = await makeTriggerKeys();
  const rk = { secret: "", publicKeys: { discord: publicKeyFor("discord", keys)! } };
  await using server = startRawServer();
  const failures: string[] = [];
  let code = 'import type { APIWebhookEvent } from "discord-api-types/v10";\n' +
    // The JSON form of a declared type: a string enum is its values on the wire, and a field declared
    // `undefined` (`data: undefined`) is absent, as JSON cannot carry it.
    "type Json<T> = T extends string ? `${T}` : T extends readonly (infer U)[] ? Json<U>[] : " +
    "T extends object ? { [K in keyof T as undefined extends T[K] ? never : K]: Json<T[K]> } & " +
    "{ [K in keyof T as undefined extends T[K] ? K : never]?: Json<T[K]> } : T;\n";
  for (const [i, event] of catalog.events.entries()) {
    await trigger({ provider: "discord", event, to: server.url, keys });
    const r = server.requests.at(-1)!;
    if (!await verify("discord", { url: server.url, headers: r.headers, body: r.body }, rk)) {
      failures.push(`${event}: refused`);
    }
    if (DISCORD_EVENTS[event] === undefined) continue;
    code += `export const e${i}: Json<APIWebhookEvent> = ${new TextDecoder().decode(r.body)};\n`;
  }
  assert.deepEqual(failures, []);
  const root = new URL("../../", import.meta.url);
  const file = new URL(`tests/trigger/.discord_check_${crypto.randomUUID()}.ts`, root);
  await Deno.writeTextFile(file, code);
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
