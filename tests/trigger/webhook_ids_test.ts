/**
 * The ids that name a webhook (not a delivery) are the same on every
 * trigger to the same URL, as the provider's are: GitHub's
 * `X-GitHub-Hook-ID` ("the unique identifier of the webhook", the body's
 * `hook_id`, and a ping's `hook.config.url` the URL it is configured with),
 * Linear's `webhookId` and `organizationId`. Delivery ids stay fresh. The
 * CLI as a subprocess, received by @octokit/webhooks and @linear/sdk.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Webhooks } from "@octokit/webhooks";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { runCli, withTmpDir } from "../_helpers.ts";
import { verify } from "./_verifiers.ts";

const SECRET = "s3cret-webhook-ids";

interface Received {
  path: string;
  delivery: string;
  hookHeader: string;
  hookId?: number;
  configUrl?: unknown;
  webhookId?: string;
  organizationId?: string;
}

Deno.test("GitHub's hook id and Linear's webhookId are the webhook's: the same on each trigger to a URL", async () => {
  await using tmp = await withTmpDir();
  const github = new Webhooks({ secret: SECRET });
  const linear = new LinearWebhookClient(SECRET);
  const seen: Received[] = [];
  const pings: { hook_id: number; hook: { config: { url?: unknown } } }[] = [];
  github.on("ping", ({ payload }) => {
    pings.push(payload as (typeof pings)[number]);
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    const h = (n: string) => request.headers.get(n) ?? "";
    const text = await request.text();
    try {
      if (path.startsWith("/github")) {
        pings.length = 0;
        await github.verifyAndReceive({
          id: h("x-github-delivery"),
          name: h("x-github-event") as "ping",
          payload: text,
          signature: h("x-hub-signature-256"),
        });
        seen.push({
          path,
          delivery: h("x-github-delivery"),
          hookHeader: h("x-github-hook-id"),
          ...(pings[0] ? { hookId: pings[0].hook_id, configUrl: pings[0].hook.config.url } : {}),
        });
      } else {
        const body = JSON.parse(text);
        const data = linear.parseData(
          Buffer.from(text),
          h("linear-signature"),
          body.webhookTimestamp,
        );
        const raw = data as unknown as { webhookId: string; organizationId: string };
        seen.push({
          path,
          delivery: h("linear-delivery"),
          hookHeader: "",
          webhookId: raw.webhookId,
          organizationId: raw.organizationId,
        });
      }
      return new Response("ok");
    } catch (error) {
      return new Response(String(error), { status: 400 });
    }
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const send = async (args: string[]) => {
      const r = await runCli(["trigger", ...args, "--secret", SECRET], { cwd: tmp.path });
      assert.equal(r.code, 0, r.stdout + r.stderr);
    };
    await send(["github", "ping", "--to", `${base}/github/a`]);
    await send(["github", "ping", "--to", `${base}/github/a`]);
    await send(["github", "ping", "--to", `${base}/github/b`]);
    await send(["github", "issues.opened", "--to", `${base}/github/a`]);
    const [a1, a2, b, issues] = seen;
    assert.ok(a1!.hookId !== undefined && a2!.hookId !== undefined, "the ping handler ran");
    assert.equal(a1!.hookHeader, a2!.hookHeader, "X-GitHub-Hook-ID is the webhook's, not the delivery's");
    assert.equal(String(a1!.hookId), a1!.hookHeader);
    assert.equal(a1!.configUrl, `${base}/github/a`);
    assert.notEqual(a1!.delivery, a2!.delivery, "X-GitHub-Delivery is fresh");
    assert.notEqual(b!.hookHeader, a1!.hookHeader, "another URL is another webhook");
    assert.equal(issues!.hookHeader, a1!.hookHeader);

    seen.length = 0;
    await send(["linear", "Issue.create", "--to", `${base}/linear`]);
    await send(["linear", "Issue.update", "--to", `${base}/linear`]);
    const [l1, l2] = seen;
    assert.match(l1!.webhookId!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(l1!.webhookId, l2!.webhookId);
    assert.equal(l1!.organizationId, l2!.organizationId);
    assert.notEqual(l1!.delivery, l2!.delivery, "Linear-Delivery is fresh");
  } finally {
    await server.shutdown();
  }
});

Deno.test("Twitch: each subscription type of a sequence has its own subscription id, the same on every trigger", async () => {
  await using tmp = await withTmpDir();
  const seen: { type: string; id: string; callback: string; ok: boolean }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const ok = await verify("twitch", {
      url: request.url,
      headers: [...request.headers],
      body,
    }, { secret: SECRET, publicKeys: {} });
    const sub = JSON.parse(new TextDecoder().decode(body)).subscription;
    seen.push({ type: sub.type, id: sub.id, callback: sub.transport.callback, ok });
    return new Response(null, { status: ok ? 204 : 403 });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/twitch`;
    for (let run = 0; run < 2; run++) {
      const r = await runCli(["trigger", "twitch", "stream", "--to", url, "--secret", SECRET], {
        cwd: tmp.path,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
    assert.equal(seen.length, 8);
    assert.ok(seen.every((s) => s.ok), "Twitch's documented HMAC verifies each");
    const first = seen.slice(0, 4);
    assert.deepEqual(first.map((s) => s.type), [
      "stream.online",
      "channel.follow",
      "channel.cheer",
      "stream.offline",
    ]);
    assert.equal(new Set(first.map((s) => s.id)).size, 4, "one subscription per type");
    assert.deepEqual(
      seen.slice(4).map((s) => s.id),
      first.map((s) => s.id),
      "the same subscriptions next time",
    );
    assert.ok(seen.every((s) => s.callback === url), "the callback is where it is sent");
  } finally {
    await server.shutdown();
  }
});
