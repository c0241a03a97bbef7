/**
 * What a sender whose answer matters (Slack, Discord, Zoom, Twitch) gets, and what hooktap says of it, found by
 * a new-user audit of handshakes and interactions through `dev` in queue and relay mode: `inspect` of a
 * relayed request said the sender got "hooktap's plain answer" 200 while it got the app's 401; `trigger` said
 * ✓ for an answer that came after the sender's 3 s; `trigger` said ✓ for a Discord interaction answered with
 * hooktap's queue 200 (Discord shows "This interaction failed"). Real `dev`, a real app over loopback (it
 * verifies with `discord-interactions`), `trigger` and `inspect` as subprocesses.
 * @module
 */
import assert from "node:assert/strict";
import { InteractionResponseType, InteractionType, verifyKey } from "discord-interactions";
import { type DevProcess, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startMcp } from "./_mcp_client.ts";
import { until } from "./_app.ts";

/** An app: `/slack` answers a slash command with a message, after `?delay` ms; `/discord` verifies, PONGs. */
function startApp(discordKey: () => string) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const raw = await req.text();
    const delay = Number(url.searchParams.get("delay") ?? 0);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (url.pathname === "/slack") {
      return Response.json({ response_type: "in_channel", text: "hello from the app" });
    }
    const ok = await verifyKey(
      raw,
      req.headers.get("x-signature-ed25519") ?? "",
      req.headers.get("x-signature-timestamp") ?? "",
      discordKey(),
    );
    if (!ok) return new Response("invalid request signature", { status: 401 });
    const body = JSON.parse(raw);
    if (body.type === InteractionType.PING) return Response.json({ type: InteractionResponseType.PONG });
    return Response.json({ type: 4, data: { content: "hi" } });
  });
}

const config = (base: string, mode: string, delay: number) =>
  `export default { port: 0, ui: false, endpoints: [\n` +
  `  { name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "s3cret",\n` +
  `    forward: { to: "${base}/slack?delay=${delay}", mode: "${mode}" } },\n` +
  `  { name: "discord", path: "/discord", method: "POST", provider: "discord",\n` +
  `    forward: { to: "${base}/discord", mode: "${mode}" } },\n` +
  `] };\n`;

async function lastId(dir: string): Promise<string> {
  const logs = await runCli(["logs", "-n", "1", "--json"], { cwd: dir });
  return JSON.parse(logs.stdout).id;
}

function answersTest(
  name: string,
  mode: "queue" | "relay",
  delay: number,
  fn: (t: { dir: string; url: string; dev: DevProcess; app: string }) => Promise<void>,
): void {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using tmp = await withTmpDir();
      let key = "";
      const app = startApp(() => key);
      try {
        await writeFile(
          tmp.path,
          "hooktap.config.ts",
          config(`http://127.0.0.1:${app.addr.port}`, mode, delay),
        );
        // The key pair trigger signs Discord's requests with: made once, its public key printed.
        const made = await runCli(["trigger", "discord", "PING", "--to", "http://127.0.0.1:1/"], {
          cwd: tmp.path,
        });
        key = made.stderr.match(/public key: ([0-9a-f]{64})/)![1]!;
        await using dev = await startDev(tmp.path);
        await fn({ dir: tmp.path, url: dev.url, dev, app: `http://127.0.0.1:${app.addr.port}` });
        await dev.stop();
      } finally {
        await app.shutdown();
      }
    },
  });
}

answersTest(
  "relay: inspect says the sender got the app's answer, never hooktap's plain 200",
  "relay",
  0,
  async ({ dir }) => {
    const sent = await runCli(["trigger", "discord", "APPLICATION_COMMAND", "--json"], { cwd: dir });
    assert.equal(sent.code, 0, sent.stderr);
    const answer = JSON.parse(sent.stdout);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.answer), { type: 4, data: { content: "hi" } });
    const id = await lastId(dir);
    const inspect = await runCli(["inspect", id], { cwd: dir });
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.doesNotMatch(inspect.stdout, /hooktap's plain answer/);
    assert.match(
      inspect.stdout,
      /Response \(relayed\)\n {2}app +200 OK\n {2}sender +passed on to the sender/,
    );
    // mcp get_event: no `answered` (hooktap answered nothing itself), and its schema says what that means.
    await using mcp = await startMcp(dir);
    const got = await mcp.call("get_event", { id });
    assert.equal(got.structured!.event.answered, undefined);
    const relayed = got.structured!.event.deliveries.flatMap((t: { attempts: unknown[] }) => t.attempts);
    assert.equal(relayed[0].source, "relay");
    assert.equal(relayed[0].status, 200);
    const schema = mcp.tools.find((t: { name: string }) => t.name === "get_event")!.outputSchema as {
      properties: { event: { properties: { answered: { description: string } } } };
    };
    assert.match(
      schema.properties.event.properties.answered.description,
      /relayed to the app .*the app's answer/,
    );
  },
);

answersTest(
  "relay: an answer after Slack's 3 s is no ✓: trigger and dev's line say Slack would have given up",
  "relay",
  3300,
  async ({ dir, dev }) => {
    const sent = await runCli(["trigger", "slack", "slash_command"], { cwd: dir });
    assert.equal(sent.code, 1, sent.stdout + sent.stderr);
    assert.match(
      sent.stdout,
      /✗ 200 in \d{4} ms \(but Slack waits 3 s for the answer: it would have given up/,
    );
    await until(
      () => /\(relayed\) — Slack waits 3 s for the answer/.test(dev.stdout()),
      "dev's line says so",
    );
    const fast = await runCli(["trigger", "discord", "PING"], { cwd: dir });
    assert.equal(fast.code, 0, fast.stdout + fast.stderr);
  },
);

answersTest(
  "queue: a Discord command answered by dev's own 200 is marked !, an app's wrong answer ✗, its right one ✓",
  "queue",
  0,
  async ({ dir, app, dev }) => {
    const viaDev = await runCli(["trigger", "discord", "APPLICATION_COMMAND"], { cwd: dir });
    assert.equal(viaDev.code, 0, viaDev.stdout + viaDev.stderr);
    assert.match(
      viaDev.stdout,
      /! 200 in \d+ ms \(but Discord's APPLICATION_COMMAND needs an interaction response back, \{"type": 4\|5\|9\|10\|12, \.\.\.\}; .*"This interaction failed": this is hooktap dev's own answer .*forward with mode: "relay"\)/,
    );
    // dev's line of the app's answer says Discord never got it.
    await until(() => dev.stdout().includes("<-- ["), "the delivery line");
    assert.match(
      dev.stdout(),
      /<-- \[200\] POST \S+\/discord .* — Discord got hooktap's 200, not this answer, and needs your app's for APPLICATION_COMMAND \(it shows "This interaction failed"\): forward with mode: "relay"/,
    );
    const right = await runCli(["trigger", "discord", "MODAL_SUBMIT", "--to", `${app}/discord`], {
      cwd: dir,
    });
    assert.equal(right.code, 0, right.stdout + right.stderr);
    assert.match(right.stdout, /✓ 200/);
    // The app's Slack route answers a message, no interaction response: Discord would fail the interaction.
    const wrong = await runCli(["trigger", "discord", "MESSAGE_COMPONENT", "--to", `${app}/slack`], {
      cwd: dir,
    });
    assert.equal(wrong.code, 1, wrong.stdout + wrong.stderr);
    assert.match(wrong.stdout, /✗ 200 .*needs an interaction response back, \{"type": 4\|5\|6\|7\|9\|10\|12/);
  },
);

answersTest(
  "queue: a Slack slash command or view_submission answered by dev's own 200 is marked !; block_actions is not",
  "queue",
  0,
  async ({ dir, dev }) => {
    const command = await runCli(["trigger", "slack", "slash_command"], { cwd: dir });
    assert.equal(command.code, 0, command.stdout + command.stderr);
    assert.match(
      command.stdout,
      /! 200 in \d+ ms \(but Slack takes the answer to slash_command \/deploy as your app's reply: this is hooktap dev's own answer \(its endpoint forwards in queue mode, or not at all\), and your app's reaches no one: forward with mode: "relay"\)/,
    );
    // dev's line of the app's answer says Slack never got it.
    await until(() => dev.stdout().includes("<-- ["), "the delivery line");
    assert.match(
      dev.stdout(),
      /<-- \[200\] POST \S+\/slack.* — Slack got hooktap's 200, not this answer, and needs your app's for slash_command \/deploy \(your app's reply never reaches the user\): forward with mode: "relay"/,
    );
    const modal = await runCli(["trigger", "slack", "view_submission"], { cwd: dir });
    assert.equal(modal.code, 0, modal.stdout + modal.stderr);
    assert.match(modal.stdout, /! 200 .*Slack takes the answer to view_submission as your app's reply/);
    // A button click needs only a 200: hooktap's is as good as the app's.
    const click = await runCli(["trigger", "slack", "block_actions"], { cwd: dir });
    assert.equal(click.code, 0, click.stdout + click.stderr);
    assert.match(click.stdout, /✓ 200/);
    assert.doesNotMatch(click.stdout, /Slack takes the answer/);
    await until(() => (dev.stdout().match(/<-- \[/g) ?? []).length >= 3, "three delivery lines");
    const clickLine =
      dev.stdout().split("\n").find((l) =>
        l.includes("<-- [") && l.includes(click.stdout.match(/evt_\w+/)?.[0] ?? "none")
      ) ?? "";
    assert.doesNotMatch(clickLine, /got hooktap's 200/);
  },
);

answersTest(
  "relay: a Slack slash command answered by the app is ✓, with no word of dev's own answer",
  "relay",
  0,
  async ({ dir }) => {
    const command = await runCli(["trigger", "slack", "slash_command"], { cwd: dir });
    assert.equal(command.code, 0, command.stdout + command.stderr);
    assert.match(command.stdout, /✓ 200/);
    assert.doesNotMatch(command.stdout, /dev's own answer/);
  },
);

Deno.test("trigger into dev sent unsigned (no secret) says so once, on its line: no dev's verdict repeating it", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [\n` +
      `  { name: "zoom", path: "/zoom", method: "POST", provider: "zoom" },\n` +
      `  { name: "gh", path: "/gh", method: "POST", provider: "github" },\n] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const cases = [
    // A Zoom validation dev cannot answer without the secret: what Zoom lacks, and no verdict beside it.
    {
      args: ["zoom", "endpoint.url_validation"],
      code: 1,
      line:
        /, unsigned\n {2}✗ 200 in \d+ ms \(but Zoom's endpoint\.url_validation needs \{"plainToken", "encryptedToken"\} back/,
      warning: /sending unsigned: no secret for Zoom/,
    },
    {
      args: ["github", "push"],
      code: 0,
      line: /POST http:\/\/127\.0\.0\.1:\d+\/gh {2}[\d.]+ KiB, unsigned\n {2}✓ 200 in \d+ ms\n/,
      warning: /sending unsigned: no secret for GitHub; give --secret/,
    },
  ];
  for (const c of cases) {
    const sent = await runCli(["trigger", ...c.args], { cwd: tmp.path });
    assert.equal(sent.code, c.code, sent.stdout + sent.stderr);
    assert.match(sent.stdout, c.line);
    assert.doesNotMatch(sent.stdout, /verdict/);
    assert.match(sent.stderr, c.warning);
  }
  const json = await runCli(["trigger", "github", "push", "--json"], { cwd: tmp.path });
  const line = JSON.parse(json.stdout);
  assert.equal(line.signed, "none");
  assert.equal(line.devVerdict, undefined);
  await dev.stop();
});

answersTest(
  "queue: dev's line says whether the app's answer to a challenge hooktap answered agrees with hooktap's",
  "queue",
  0,
  async ({ dir, dev }) => {
    // The app PONGs Discord's PING, and answers Slack's url_verification with a message, not the challenge.
    for (const [provider, event] of [["discord", "PING"], ["slack", "url_verification"]]) {
      const sent = await runCli(["trigger", provider!, event!], { cwd: dir });
      assert.equal(sent.code, 0, sent.stdout + sent.stderr); // the sender got hooktap's answer
    }
    await until(() => dev.stdout().split("\n").filter((l) => l.includes("<-- [")).length === 2, "both lines");
    const lines = dev.stdout().split("\n").filter((l) => l.includes("<-- ["));
    assert.match(
      lines[0]!,
      /\/discord .* \(hooktap answered Discord's challenge; your app's answer agrees\)$/,
    );
    assert.match(
      lines[1]!,
      /\/slack\?delay=0 .* — hooktap answered Slack's challenge, and your app's answer differs: without hooktap Slack would refuse the URL \(hooktap's answer: 200 \{"challenge":"\w+"\}\)$/,
    );
  },
);
