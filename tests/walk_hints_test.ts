/**
 * What a new user is told after a failure, through the real CLI (issue 33.5, found by a walk through the
 * README from the npm package): `dev`'s "gave up" hint and its start report begin the way the user runs
 * hooktap (`npx hooktap` through npx, `HOOKTAP_INVOKED_AS`), so does `init`'s next step, and after a
 * `replay --undelivered` to the forward targets the summary does not claim the suggested command sends
 * the events that were just delivered again (it does not: they are delivered now).
 */
import assert from "node:assert/strict";
import { startApp, until } from "./_app.ts";
import { captureEvents } from "./_capture.ts";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const NPX = { HOOKTAP_INVOKED_AS: "npx hooktap" };
const WITH_ENV = [...LEAST_PRIVILEGE, "--allow-env"];
const INIT_PERMS = ["--allow-read=.", "--allow-write=hooktap.config.ts"];

function config(appPort: number): string {
  return `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
    `forward: { to: "http://127.0.0.1:${appPort}/hook", retry: { attempts: 1 } } }] };\n`;
}

async function post(url: string, n: number): Promise<void> {
  const r = await fetch(`${url}/gh`, { method: "POST", body: JSON.stringify({ n }) });
  assert.equal(r.status, 200);
  await r.body?.cancel();
}

const numberOf = (body: Uint8Array) => (JSON.parse(new TextDecoder().decode(body)) as { n: number }).n;

Deno.test("dev's gave-up hints start as the user runs hooktap, and a resend to the forward targets is summed up truly", async () => {
  await using tmp = await withTmpDir();
  let ok = (_n: number) => false;
  await using app = startApp(0, (req) => ({ status: ok(numberOf(req.body)) ? 200 : 500 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  const target = `127.0.0.1:${app.port}/hook`;
  const command = `npx hooktap replay --undelivered --endpoint gh --target ${target}`;
  {
    await using dev = await startDev(tmp.path, [], { env: NPX, permissions: WITH_ENV });
    await post(dev.url, 0);
    await post(dev.url, 1);
    await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 2, "two gave-up lines");
    assert.match(dev.stdout(), new RegExp(`gave up: ${command.replaceAll(".", "\\.")} sends it again`));
    assert.equal(await dev.stop(), 0);
  }
  {
    // The next start reports them with the same command.
    await using dev = await startDev(tmp.path, [], { env: NPX, permissions: WITH_ENV });
    await until(() => /failed every delivery attempt/.test(dev.stderr()), "the start report");
    assert.match(dev.stderr(), /2 events of endpoint gh failed every delivery attempt/);
    assert.ok(dev.stderr().includes(`earlier: ${command} sends them again.`), dev.stderr());
    assert.equal(await dev.stop(), 0);
  }
  // The app now takes event 0 only: the resend delivers it, and the hint's command sends event 1 alone.
  ok = (n) => n === 0;
  const words = command.split(" ").slice(2);
  const first = await runCli(words, { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.equal(first.code, 1, first.stderr);
  assert.match(first.stderr, /Sent 2 of 2: 1 answered 2xx, 1 failed\./);
  assert.doesNotMatch(first.stderr, /sends all/);
  const hint = first.stderr.match(/Send them again once the app is fixed[^:]*: (.*)\n/)?.[1];
  assert.equal(hint, command);
  const before = app.requests.length;
  const again = await runCli(words, { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /Sent 1 of 1: 0 answered 2xx, 1 failed\./);
  assert.deepEqual(app.requests.slice(before).map((r) => numberOf(r.body)), [1]);
});

Deno.test("init's next step starts as the user runs hooktap", async () => {
  await using tmp = await withTmpDir();
  const npx = await runCli(["init", "--yes"], {
    cwd: tmp.path,
    env: NPX,
    permissions: [...INIT_PERMS, "--allow-env"],
  });
  assert.equal(npx.code, 0, npx.stderr);
  assert.match(npx.stderr, /\nNext: npx hooktap dev\n/);
  await Deno.remove(`${tmp.path}/hooktap.config.ts`);
  const plain = await runCli(["init", "--yes"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /\nNext: hooktap dev\n/);
});

Deno.test("a bulk --resign refused for an invalid signature suggests no command that is refused again", async () => {
  await using tmp = await withTmpDir();
  const secret = "s3cret";
  await captureEvents(
    tmp.path,
    [{
      path: "/github",
      headers: [["content-type", "application/json"], ["x-github-event", "push"], [
        "x-hub-signature-256",
        `sha256=${"0".repeat(64)}`,
      ]],
      body: '{"ref":"refs/heads/main"}',
    }],
    `export default { port: 0, endpoints: [{ name: "github", path: "/github", method: "POST", secret: "${secret}" }] };\n`,
  );
  await using app = startApp(0, () => ({ status: 200 }));
  const r = await runCli(
    [
      "replay",
      "--endpoint",
      "github",
      "--verdict",
      "invalid",
      "--resign",
      "--to",
      `http://127.0.0.1:${app.port}/`,
    ],
    { cwd: tmp.path },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Refusing to re-sign evt_\w+: its signature was invalid when hooktap received it/);
  assert.match(r.stderr, /--resign-invalid to re-sign it anyway/);
  assert.doesNotMatch(r.stderr, /Send them again once the app is fixed/);
  assert.equal(app.requests.length, 0, "nothing reached the app");
});

Deno.test("dev's start report counts only the given-up events prune left, as the command it prints finds", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 500 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  {
    await using dev = await startDev(tmp.path);
    for (let n = 0; n < 3; n++) await post(dev.url, n);
    await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 3, "three gave-up lines");
    assert.equal(await dev.stop(), 0);
  }
  const pruned = await runCli(["prune", "--keep", "1"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  await using dev = await startDev(tmp.path);
  await until(() => /failed every delivery attempt/.test(dev.stderr()), "the start report");
  assert.match(dev.stderr(), /\n1 event of endpoint gh failed every delivery attempt/);
  const command = dev.stderr().match(/earlier: hooktap (replay [^\n]*) sends it again/)![1]!;
  const again = await runCli(command.split(" "), { cwd: tmp.path });
  assert.match(again.stderr, /Sent 1 of 1:/);
  assert.equal(await dev.stop(), 0);
});

Deno.test("dev's start report leaves out a given-up event removed with rm from the middle of the log", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 500 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(app.port));
  {
    await using dev = await startDev(tmp.path);
    for (let n = 0; n < 3; n++) await post(dev.url, n);
    await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 3, "three gave-up lines");
    assert.equal(await dev.stop(), 0);
  }
  const ids = (await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim().split("\n")
    .map((l) => JSON.parse(l).id as string).sort();
  const removed = await runCli(["rm", ids[1]!, "--yes"], { cwd: tmp.path });
  assert.equal(removed.code, 0, removed.stderr);
  await using dev = await startDev(tmp.path);
  await until(() => /failed every delivery attempt/.test(dev.stderr()), "the start report");
  assert.match(dev.stderr(), /\n2 events of endpoint gh failed every delivery attempt/);
  const command = dev.stderr().match(/earlier: hooktap (replay [^\n]*) sends them again/)![1]!;
  const again = await runCli(command.split(" "), { cwd: tmp.path });
  assert.match(again.stderr, /Sent 2 of 2:/);
  assert.equal(await dev.stop(), 0);
});
