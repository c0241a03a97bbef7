/**
 * `hooktap dev --hub` when the hub refuses its token mid-run (`hooktap hub
 * token rotate`) and when it connects again: the real CLI (hub serve, token
 * rotate, dev) as subprocesses in a temp directory, senders on loopback.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import { createChannel, hubSeqs, send, startHub } from "./_hub.ts";

const CONFIG = `export default {
  port: 8787,
  ui: false,
  endpoints: [{ name: "gh", path: "/gh", method: "POST" }],
};
`;

Deno.test("hub: after `hub token rotate`, dev says what to do once, takes the new token from .hooktap/hub-token, and catches up from the right event, its lines in the hub's order", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const tokenFile = `${tmp.path}/.hooktap/hub-token`;
  await writeFile(tmp.path, ".hooktap/hub-token", `${channel.token}\n`);
  await Deno.chmod(tokenFile, 0o600);
  await using dev = await startDev(tmp.path, ["--hub", channel.url]);
  await until(() => dev.stderr().includes("connected"), "dev to connect");
  for (let i = 0; i < 2; i++) assert.equal(await send(`${channel.url}/gh`, `{"n":${i}}`), 200);
  await until(async () => (await hubSeqs(tmp.path)).length === 2, "dev to store events 1 and 2");

  const rotated = await runCli(["hub", "token", "rotate", "--hub", channel.url], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-env"],
    env: { HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  });
  assert.equal(rotated.code, 0, rotated.stderr);
  const fresh = rotated.stdout.trim();
  await until(() => /refused the token/.test(dev.stderr()), "dev to say the hub refused the token");
  const said = dev.stderr().split("\n").find((l) => l.includes("refused the token"))!;
  assert.match(said, /write the new token to .*\.hooktap\/hub-token \(chmod 600\): dev reconnects/);
  assert.doesNotMatch(said, /retrying/, "the same token will not work again: no 'retrying'");

  // Sent while dev is refused: 200s at dev first, then 404s (they answer sooner than a stored event).
  for (let i = 0; i < 5; i++) assert.equal(await send(`${channel.url}/gh`, `{"late":${i}}`), 200);
  for (let i = 0; i < 3; i++) assert.equal(await send(`${channel.url}/nowhere/${i}`, "x"), 200);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(dev.stderr().split("refused the token").length - 1, 1, "said once:\n" + dev.stderr());

  await Deno.writeTextFile(tokenFile, `${fresh}\n`);
  await until(async () => (await hubSeqs(tmp.path)).length === 7, "dev to take the new token and catch up");
  assert.deepEqual(await hubSeqs(tmp.path), [1, 2, 3, 4, 5, 6, 7]);
  await until(() => (dev.stdout().match(/\/nowhere\/\d/g) ?? []).length === 3, "the 404 lines");
  assert.match(dev.stderr(), /Hub: connected again; catching up from event 3 \(8 waiting\)\./);
  // The activity lines (stdout) in the hub's order: 1..7 (200, /gh) before 8..10 (404, /nowhere/0..2).
  const lines = dev.stdout().split("\n").filter((l) => /\/gh|\/nowhere/.test(l));
  assert.deepEqual(
    lines.map((l) =>
      `${(l.match(/\/nowhere\/\d|\/gh/) ?? [""])[0]} ${(l.match(/ (200|404) /) ?? [""])[0].trim()}`
    ),
    [...Array(7).fill("/gh 200"), "/nowhere/0 404", "/nowhere/1 404", "/nowhere/2 404"],
    dev.stdout(),
  );
  // The unmatched log is appended beside the line, not before it: read it once it holds all three.
  const unmatchedLines = async () =>
    (await Deno.readTextFile(`${tmp.path}/.hooktap/unmatched.jsonl`)).trim().split("\n");
  await until(async () => (await unmatchedLines()).length >= 3, "the unmatched log's three lines");
  const unmatched = await unmatchedLines();
  assert.deepEqual(unmatched.map((l) => JSON.parse(l).path), ["/nowhere/0", "/nowhere/1", "/nowhere/2"]);
  assert.equal(await dev.stop("SIGINT"), 0);
});

Deno.test("hub: with nothing waiting, dev says 'connected again' on its first poll with the new token, not at the next event; doctor gives dev's advice meanwhile", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const tokenFile = `${tmp.path}/.hooktap/hub-token`;
  await writeFile(tmp.path, ".hooktap/hub-token", `${channel.token}\n`);
  await Deno.chmod(tokenFile, 0o600);
  await using dev = await startDev(tmp.path, ["--hub", channel.url, "--hub-client", "alice"]);
  await until(() => dev.stderr().includes("as alice connected"), "dev to connect");
  const rotated = await runCli(["hub", "token", "rotate", "--hub", channel.url], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-env"],
    env: { HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  });
  assert.equal(rotated.code, 0, rotated.stderr);
  await until(() => /refused the token/.test(dev.stderr()), "dev to say the hub refused the token");
  const hubCheck = async () => {
    const doctor = await runCli(["doctor", "--json"], { cwd: tmp.path });
    return JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === "hub");
  };
  const refused = await hubCheck();
  assert.equal(refused.status, "warn");
  assert.match(
    refused.fix,
    /write the new token to .*\.hooktap\/hub-token \(chmod 600\)/,
    "dev's own advice",
  );
  assert.doesNotMatch(refused.fix, /keeps retrying/);

  await Deno.writeTextFile(tokenFile, `${rotated.stdout.trim()}\n`);
  // No event is sent: the first poll with the new token (which waits up to 25 s for one) is the proof.
  await until(() => dev.stderr().includes("Hub: connected again"), "dev to say it is connected again");
  assert.match(dev.stderr(), /Hub: connected again; nothing waited at the hub\./);
  const state = JSON.parse(await Deno.readTextFile(`${tmp.path}/.hooktap/hub.json`));
  assert.equal(state.connected, true);
  assert.equal(state.tokenRefused, undefined);
  assert.equal(state.error, undefined);
  const connected = await hubCheck();
  assert.equal(connected.status, "ok", connected.summary);
  assert.equal(await dev.stop("SIGINT"), 0);
});
