/**
 * Every Zoom entry, as `trigger` sends it: signed as Zoom documents it
 * (`x-zm-signature: v0=HMAC(v0:ts:body)`), and its body type-checks against
 * the event's payload type in `@zoom/rivet` (each product's event processor's
 * `emit(event, payload)`, in a generated file run through `deno check`).
 */
import assert from "node:assert/strict";
import { catalog } from "../../src/providers/zoom/catalog.ts";
import { ZOOM_EVENTS } from "../../src/providers/zoom/samples/events.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

const SECRET = "zoom-secret-token";
const PROCESSORS: Record<string, string> = {
  accounts: "AccountsEventProcessor",
  marketplace: "MarketplaceEventProcessor",
  meetings: "MeetingsEventProcessor",
  phone: "PhoneEventProcessor",
  teamchat: "TeamChatEventProcessor",
  users: "UsersEventProcessor",
  videosdk: "VideoSdkEventProcessor",
};

Deno.test("Zoom's catalog holds >= 90% of @zoom/rivet's 289 event declarations, each accepted and type-valid", async () => {
  assert.match(catalog.source, /^generated from @zoom\/rivet@\d+\.\d+\.\d+$/);
  assert.ok(catalog.events.length >= 0.9 * 289, `${catalog.events.length} events`);
  await using server = startRawServer();
  const failures: string[] = [];
  let code = "";
  const used = new Set<string>();
  for (const [i, event] of catalog.events.entries()) {
    await trigger({ provider: "zoom", event, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    if (
      !await verify("zoom", { url: server.url, headers: r.headers, body: r.body }, {
        secret: SECRET,
        publicKeys: {},
      })
    ) {
      failures.push(`${event}: refused`);
    }
    const body = JSON.parse(new TextDecoder().decode(r.body));
    if (body.event !== event && event !== "endpoint.url_validation") {
      failures.push(`${event}: body.event ${body.event}`);
    }
    const product = ZOOM_EVENTS[event]?.product;
    if (product === undefined) continue;
    used.add(product);
    code += `${product}.emit(${JSON.stringify(event)}, ${JSON.stringify(body)});\n// ${i}\n`;
  }
  assert.deepEqual(failures, []);
  const header = [...used].map((p) =>
    `import type { ${PROCESSORS[p]} } from "@zoom/rivet/${p}";\ndeclare const ${p}: ${PROCESSORS[p]};\n`
  ).join("");
  const root = new URL("../../", import.meta.url);
  const file = new URL(`tests/trigger/.zoom_check_${crypto.randomUUID()}.ts`, root);
  await Deno.writeTextFile(file, header + code);
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
