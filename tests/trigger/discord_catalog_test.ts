/**
 * Every Discord entry, as `trigger` sends it: verified by
 * discord-interactions' verifyKey with the trigger key's public half; every
 * value of discord-interactions' WebhookEventType in the catalog, each sent
 * as a webhook event of that type; and each event discord-api-types declares
 * type-valid against its APIWebhookEvent (a generated file run through
 * `deno check`).
 */
import assert from "node:assert/strict";
import { verifyKey, WebhookEventType, WebhookType } from "discord-interactions";
import { catalog } from "../../src/providers/discord/catalog.ts";
import { DISCORD_EVENTS } from "../../src/providers/discord/samples/events.gen.ts";
import { makeTriggerKeys, publicKeyFor } from "../../src/trigger/keys.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

Deno.test("Discord's catalog: 5 interactions, every WebhookEventType and every event of discord-api-types, verified", async () => {
  assert.match(
    catalog.source,
    /^generated from discord-api-types@\d+\.\d+\.\d+ and discord-interactions@\d+\.\d+\.\d+$/,
  );
  const listed = Object.values(WebhookEventType) as string[];
  assert.ok(listed.length >= 10, `${listed.length} values of WebhookEventType`);
  assert.deepEqual(
    listed.filter((e) => !catalog.events.includes(e)),
    [],
    "WebhookEventType values not in the catalog",
  );
  const webhooks = new Set([...listed, ...Object.keys(DISCORD_EVENTS).filter((e) => e !== "WEBHOOK_PING")]);
  for (const e of ["ENTITLEMENT_UPDATE", "ENTITLEMENT_DELETE"]) assert.ok(webhooks.has(e), e);
  for (const event of listed) {
    const origin = catalog.entryOrigin?.(event)?.from;
    assert.equal(
      origin,
      DISCORD_EVENTS[event] ? `discord-api-types ${DISCORD_EVENTS[event]!.data}` : "hand-written",
    );
  }
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
    const header = (name: string) => r.headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? "";
    const signature = header("x-signature-ed25519"), timestamp = header("x-signature-timestamp");
    if (!await verifyKey(r.body, signature, timestamp, rk.publicKeys.discord!)) {
      failures.push(`${event}: refused by verifyKey`);
    }
    const sent = JSON.parse(new TextDecoder().decode(r.body));
    if (webhooks.has(event)) {
      if (sent.type !== WebhookType.EVENT || sent.event?.type !== event || sent.version !== 1) {
        failures.push(`${event}: sent as ${JSON.stringify({ type: sent.type, event: sent.event?.type })}`);
      }
      // `data` is optional in the event body (QUEST_USER_ENROLLMENT's type declares none).
      const data = sent.event?.data;
      if (
        Number.isNaN(Date.parse(sent.event?.timestamp)) || (data !== undefined && typeof data !== "object")
      ) {
        failures.push(`${event}: no timestamp, or data that is not an object`);
      }
    } else if (event === "WEBHOOK_PING" && sent.type !== WebhookType.PING) {
      failures.push(`${event}: not a PING`);
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
