/**
 * `hooktap dev --hub` when its channel is deleted at the hub (`hooktap hub
 * channel rm`): the real CLI (hub serve, channel rm, dev) as subprocesses in a
 * temp directory.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import { createChannel, startHub } from "./_hub.ts";

const CONFIG = `export default {
  port: 8787,
  ui: false,
  endpoints: [{ name: "gh", path: "/gh", method: "POST" }],
};
`;

Deno.test("hub: a channel deleted while dev is connected: dev says so once (no 'events wait', no 'retrying', no token advice); a dev started on it is told the channel may be gone", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const env = { HOOKTAP_HUB_TOKEN: channel.token };
  await using dev = await startDev(tmp.path, ["--hub", channel.url], { env, permissions: ["-A"] });
  await until(() => dev.stderr().includes("connected"), "dev to connect");

  const id = channel.url.split("/c/")[1]!;
  const rm = await runCli(["hub", "channel", "rm", id, "--hub", hub.url], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-env"],
    env: { HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  });
  assert.equal(rm.code, 0, rm.stderr);
  await until(() => /deleted at the hub/.test(dev.stderr()), "dev to say the channel was deleted");
  await new Promise((r) => setTimeout(r, 2500));
  const after = dev.stderr().slice(dev.stderr().indexOf("Hub: http"));
  const said = after.split("\n").filter((l) => l.startsWith("Hub:")).slice(1);
  assert.equal(said.length, 1, after);
  assert.match(said[0]!, /channel .* was deleted at the hub.*hub channel create/);
  assert.doesNotMatch(after, /Events wait at the hub|retrying|refused the token/, after);
  assert.equal(await dev.stop("SIGINT"), 0);

  const again = await runCli(["dev", "--hub", channel.url, "--port", "0"], {
    cwd: tmp.path,
    permissions: ["-A"],
    env,
    timeoutMs: 30_000,
  });
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /refused the token for .*or the channel was deleted at the hub/, again.stderr);
});
