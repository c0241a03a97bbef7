/**
 * Every Twitch entry, as `trigger` sends it: signed as Twitch documents it
 * (HMAC of message id, timestamp and body), headers that agree with the body
 * (subscription type and version), and each notification's `event`
 * type-valid against its data interface in `@twurple/eventsub-base` (a
 * generated file, importing the package's declaration files, run through
 * `deno check`).
 */
import assert from "node:assert/strict";
import { catalog } from "../../src/providers/twitch/catalog.ts";
import { TWITCH_EVENTS } from "../../src/providers/twitch/samples/events.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

const SECRET = "twitch-eventsub-secret";
const header = (r: { headers: readonly [string, string][] }, name: string) =>
  r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

Deno.test("Twitch's catalog: >= 90% of 73 EventSub subscription types, each accepted and type-valid", async () => {
  assert.match(catalog.source, /^generated from @twurple\/eventsub-base@\d+\.\d+\.\d+/);
  const notifications = catalog.events.filter((e) => TWITCH_EVENTS[e] !== undefined);
  assert.ok(notifications.length >= 0.9 * 73, `${notifications.length} subscription types`);
  const root = new URL(import.meta.resolve("@twurple/eventsub-base")).href.replace(/lib\/index\.js$/, "");
  await using server = startRawServer();
  const failures: string[] = [];
  let code = "";
  for (const [i, name] of catalog.events.entries()) {
    await trigger({ provider: "twitch", event: name, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    if (
      !await verify("twitch", { url: server.url, headers: r.headers, body: r.body }, {
        secret: SECRET,
        publicKeys: {},
      })
    ) {
      failures.push(`${name}: refused`);
    }
    const g = TWITCH_EVENTS[name];
    if (g === undefined) continue;
    const body = JSON.parse(new TextDecoder().decode(r.body));
    if (header(r, "Twitch-Eventsub-Subscription-Type") !== body.subscription.type) {
      failures.push(`${name}: type header`);
    }
    if (header(r, "Twitch-Eventsub-Subscription-Version") !== body.subscription.version) {
      failures.push(`${name}: version header`);
    }
    if (body.subscription.version !== g.version) {
      failures.push(`${name}: version ${body.subscription.version}`);
    }
    code += `import type { ${g.data} as T${i} } from ${JSON.stringify(root + g.file)};\n` +
      `export const e${i}: Json<T${i}> = ${JSON.stringify(body.event)};\n`;
  }
  assert.deepEqual(failures, []);
  const file = new URL(
    `tests/trigger/.twitch_check_${crypto.randomUUID()}.ts`,
    new URL("../../", import.meta.url),
  );
  // The JSON form of a declared type: twurple declares some times as Date, which JSON carries as strings.
  const json = "type Json<T> = T extends Date ? string : T extends readonly (infer U)[] ? Json<U>[] : " +
    "T extends object ? { [K in keyof T]: Json<T[K]> } : T;\n";
  await Deno.writeTextFile(file, json + code);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file.pathname],
      cwd: new URL("../../", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr).slice(0, 4000));
  } finally {
    await Deno.remove(file);
  }
});
