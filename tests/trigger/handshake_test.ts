/**
 * A URL handshake answered 200 but wrongly is not `ok`: Slack, Discord, Zoom
 * and Twitch each refuse an endpoint whose answer lacks what their docs ask
 * for. The CLI as a subprocess against a loopback app that answers each
 * handshake either as the provider documents it (checked with the
 * provider's library where one exists) or with a bare `ok`.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import { verifyKey } from "discord-interactions";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";

const SECRET = "s3cret-handshake";

/** The answer each provider's docs ask for, or `undefined` when the request is no valid handshake. */
async function documentedAnswer(provider: string, request: Request, dir: string): Promise<Response> {
  const text = await request.text();
  const body = JSON.parse(text);
  switch (provider) {
    case "slack": // https://api.slack.com/events/url_verification
      return Response.json({ challenge: body.challenge });
    case "discord": { // https://discord.com/developers/docs/interactions/overview: verify, then PONG; a
      // webhook event PING (type 0, https://discord.com/developers/docs/events/webhook-events): 204, no body.
      const keys = JSON.parse(await Deno.readTextFile(`${dir}/.hooktap/trigger-keys.json`));
      const publicKey = Buffer.from(keys.ed25519.public, "base64").toString("hex");
      const ok = await verifyKey(
        text,
        request.headers.get("x-signature-ed25519") ?? "",
        request.headers.get("x-signature-timestamp") ?? "",
        publicKey,
      );
      if (!ok) return new Response("bad signature", { status: 401 });
      return body.type === 0 ? new Response(null, { status: 204 }) : Response.json({ type: 1 });
    }
    case "zoom": { // https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint
      const plainToken = body.payload.plainToken;
      const encryptedToken = createHmac("sha256", SECRET).update(plainToken).digest("hex");
      return Response.json({ plainToken, encryptedToken });
    }
    default: // Twitch: the raw challenge as text/plain
      return new Response(body.challenge, { headers: { "content-type": "text/plain" } });
  }
}

const HANDSHAKES: [string, string, RegExp][] = [
  ["slack", "url_verification", /Slack's url_verification needs its challenge back/],
  ["discord", "PING", /Discord's PING needs a PONG back/],
  ["discord", "WEBHOOK_PING", /Discord's webhook event PING needs 204 with an empty body/],
  ["zoom", "endpoint.url_validation", /Zoom's endpoint.url_validation needs/],
  [
    "twitch",
    "webhook_callback_verification",
    /Twitch's webhook_callback_verification needs the raw challenge/,
  ],
];

Deno.test("a handshake answered 200 without what the provider asks for fails (exit 1); answered as documented passes", async () => {
  await using tmp = await withTmpDir();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const [, kind, provider] = new URL(request.url).pathname.split("/");
    if (kind === "right") return documentedAnswer(provider!, request, tmp.path);
    return new Response("ok");
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    for (const [provider, event, problem] of HANDSHAKES) {
      const wrong = await runCli(
        ["trigger", provider, event, "--to", `${base}/wrong/${provider}`, "--secret", SECRET],
        { cwd: tmp.path },
      );
      assert.equal(wrong.code, 1, `${provider}: ${wrong.stdout}${wrong.stderr}`);
      assert.match(wrong.stdout, /✗ 200/, provider);
      assert.match(wrong.stdout, problem, provider);

      const json = await runCli(
        ["trigger", provider, event, "--to", `${base}/wrong/${provider}`, "--secret", SECRET, "--json"],
        { cwd: tmp.path },
      );
      const line = JSON.parse(json.stdout.trim().split("\n")[0]!);
      assert.equal(line.ok, false, provider);
      assert.equal(line.status, 200, provider);
      assert.match(line.answerProblem, problem, provider);

      const right = await runCli(
        ["trigger", provider, event, "--to", `${base}/right/${provider}`, "--secret", SECRET],
        { cwd: tmp.path },
      );
      assert.equal(right.code, 0, `${provider}: ${right.stdout}${right.stderr}`);
      assert.match(right.stdout, /✓ 20[04]/, provider);
      assert.doesNotMatch(right.stdout, /but /, provider);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("Zoom's handshake answered with an encryptedToken made with another secret fails", async () => {
  await using tmp = await withTmpDir();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const plainToken = (await request.json()).payload.plainToken;
    return Response.json({
      plainToken,
      encryptedToken: createHmac("sha256", "other").update(plainToken).digest("hex"),
    });
  });
  try {
    const r = await runCli(
      [
        "trigger",
        "zoom",
        "endpoint.url_validation",
        "--to",
        `http://127.0.0.1:${server.addr.port}/`,
        "--secret",
        SECRET,
      ],
      { cwd: tmp.path },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /encryptedToken the hex HMAC-SHA256 of plainToken with the secret token/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("through hooktap dev, every handshake (Discord's webhook event PING too) is answered as the provider asks", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default {
  port: 0,
  endpoints: [
    { name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "${SECRET}" },
    { name: "discord", path: "/discord", method: "POST", provider: "discord" },
    { name: "zoom", path: "/zoom", method: "POST", provider: "zoom", secret: "${SECRET}" },
    { name: "twitch", path: "/twitch", method: "POST", provider: "twitch", secret: "${SECRET}" },
  ],
};
`,
  );
  await using dev = await startDev(tmp.path);
  for (const [provider, event] of HANDSHAKES) {
    const r = await runCli(["trigger", provider, event, "--json"], { cwd: tmp.path });
    assert.equal(r.code, 0, `${provider} ${event}: ${r.stdout}${r.stderr}\n${dev.stderr()}`);
    const line = JSON.parse(r.stdout.trim().split("\n")[0]!);
    assert.equal(line.ok, true, `${provider} ${event}`);
    if (event === "WEBHOOK_PING") assert.deepEqual([line.status, line.answer], [204, ""]);
  }
  // A Discord webhook event of type 1 is an event, not an interaction PING: dev does not answer it a PONG.
  const event = await runCli(["trigger", "discord", "APPLICATION_AUTHORIZED", "--json"], { cwd: tmp.path });
  assert.equal(event.code, 0, event.stdout + event.stderr);
  assert.doesNotMatch(JSON.parse(event.stdout.trim()).answer, /"type":1/);
});
