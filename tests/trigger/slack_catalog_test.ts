/**
 * Every Slack entry, as `trigger` sends it: signed as Slack documents it (v0
 * HMAC over the timestamp and body), each Events API event inside Slack's
 * `event_callback` envelope, and each generated event type-valid against its
 * `@slack/types` interface (a generated file run through `deno check`).
 */
import assert from "node:assert/strict";
import { catalog } from "../../src/providers/slack/catalog.ts";
import { SLACK_EVENTS } from "../../src/providers/slack/samples/events.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

const SECRET = "slack-signing-secret";

Deno.test("Slack's catalog: >= 90% of @slack/types' event types and 9 interactivity payloads, accepted and type-valid", async () => {
  assert.match(catalog.source, /^generated from @slack\/types@\d+\.\d+\.\d+$/);
  const generated = catalog.events.filter((e) => SLACK_EVENTS[e] !== undefined);
  assert.ok(generated.length >= 90, `${generated.length} Events API types`);
  const interactivity = catalog.events.filter((e) => catalog.entryOrigin?.(e)?.from === "hand-written");
  for (
    const t of [
      "block_actions",
      "block_suggestion",
      "view_submission",
      "view_closed",
      "shortcut",
      "message_action",
      "interactive_message",
      "dialog_submission",
      "dialog_cancellation",
    ]
  ) assert.ok(interactivity.includes(t), t);
  await using server = startRawServer();
  const failures: string[] = [];
  let code = "";
  for (const [i, event] of catalog.events.entries()) {
    await trigger({ provider: "slack", event, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    if (
      !await verify("slack", { url: server.url, headers: r.headers, body: r.body }, {
        secret: SECRET,
        publicKeys: {},
      })
    ) {
      failures.push(`${event}: refused`);
    }
    const g = SLACK_EVENTS[event];
    if (g === undefined) continue;
    const body = JSON.parse(new TextDecoder().decode(r.body));
    if (body.type !== "event_callback" || typeof body.event_id !== "string") {
      failures.push(`${event}: envelope`);
    }
    // GenericMessageEvent declares `subtype: undefined`, which JSON cannot carry: Slack leaves it out.
    // The other interfaces are not all exported: each is the member of SlackEvent with its type.
    const t = g.type === "GenericMessageEvent"
      ? `Omit<GenericMessageEvent, "subtype">`
      : `Extract<SlackEvent, { type: ${JSON.stringify(body.event.type)} }>`;
    code += `export const e${i}: ${t} = ${JSON.stringify(body.event)};\n`;
  }
  assert.deepEqual(failures, []);
  const root = new URL("../../", import.meta.url);
  const file = new URL(`tests/trigger/.slack_check_${crypto.randomUUID()}.ts`, root);
  await Deno.writeTextFile(
    file,
    `import type { GenericMessageEvent, SlackEvent } from "@slack/types";\n${code}`,
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

Deno.test("trigger --list slack says which entries are generated and which hand-written", async () => {
  const { listCatalog } = await import("../../src/trigger/list.ts");
  const { listText } = await import("../../src/term/trigger_view.ts");
  const { createColors } = await import("../../src/term/colors.ts");
  const entries = await listCatalog("slack");
  const hand = entries.filter((e) => e.kind === "event" && !e.generated).map((e) => e.name);
  assert.ok(hand.includes("block_actions") && hand.includes("url_verification"), hand.join(", "));
  assert.ok(!hand.includes("app_mention"));
  const text = listText(entries, {}, true, createColors(false));
  const head = text.split("\n")[0]!;
  assert.match(head, /^\d+ events, \d+ generated from @slack\/types@[\d.]+, \d+ hand-written\.$/);
  assert.ok(!/example\+schema/.test(head), "GitHub's origins are not Slack's");
});
