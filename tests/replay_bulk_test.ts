import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, readEvents, runCli, withTmpDir } from "./_helpers.ts";
import { captureEvents } from "./_capture.ts";

async function stored(dir: string, n: number): Promise<string[]> {
  return await captureEvents(
    dir,
    Array.from({ length: n }, (_, i) => ({
      path: i % 3 === 0 ? "/github" : "/webhook",
      headers: [["content-type", "application/json"]] as [string, string][],
      body: JSON.stringify({ i }),
    })),
  );
}

Deno.test("`hooktap replay --endpoint NAME --to URL` sends every match in arrival order and sums up", async () => {
  await using tmp = await withTmpDir();
  const ids = await stored(tmp.path, 12);
  const got: string[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    got.push(body);
    return new Response(null, { status: JSON.parse(body).i === 7 ? 500 : 200 });
  });
  const to = `http://127.0.0.1:${server.addr.port}/in`;
  const r = await runCli(["replay", "--endpoint", "default", "--to", to, "--rate", "200/s"], {
    cwd: tmp.path,
  });
  const events = await readEvents(tmp.path);
  const want = events.filter((e) => e.endpoint === "default").map((e) => e.body);
  assert.deepEqual(got, want);
  assert.equal(r.code, 1); // one answered 500
  assert.match(r.stderr, /Sent 8 of 8: 7 answered 2xx, 1 failed\./);
  assert.match(r.stderr, /: 500 /);
  assert.equal(ids.length, 12);
  // Every send is recorded as a replay delivery, in order; a second run numbers its sends after the first's.
  const deliveries = async () =>
    (await Deno.readTextFile(`${tmp.path}/.hooktap/deliveries.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
  const first = await deliveries();
  const sentIds = events.filter((e) => e.endpoint === "default").map((e) => e.id);
  assert.deepEqual(first.map((d) => [d.event, d.source, d.attempt]), sentIds.map((id) => [id, "replay", 1]));
  assert.equal(first.filter((d) => d.outcome === "failed").length, 1);
  // v2 records: the target by name (derived from the URL) and the URL sent to.
  assert.equal(
    first.every((d) => d.url === to && d.target === `127.0.0.1:${server.addr.port}/in` && d.v === 2),
    true,
  );
  const again = await runCli(["replay", "--endpoint", "default", "--to", to], { cwd: tmp.path });
  assert.equal(again.code, 1);
  const second = (await deliveries()).slice(first.length);
  assert.deepEqual(second.map((d) => [d.event, d.attempt]), sentIds.map((id) => [id, 2]));
  const none = await runCli(["replay", "--to", to], { cwd: tmp.path });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Give an event id, or filters/);
  const badRate = await runCli(["replay", "-e", "default", "--to", to, "--rate", "fast"], { cwd: tmp.path });
  assert.equal(badRate.code, 2);
});

Deno.test("Ctrl-C stops a bulk replay after the send in flight, prints the summary, exits 130", async () => {
  await using tmp = await withTmpDir();
  await stored(tmp.path, 30);
  let received = 0;
  let answered = 0;
  let firstIn: () => void;
  const started = new Promise<void>((r) => (firstIn = r));
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.text();
    received++;
    if (received === 3) firstIn();
    await new Promise((r) => setTimeout(r, 150)); // slow: the interrupt lands mid-send
    answered++;
    return new Response("ok");
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, [
      "replay",
      "--since",
      "1h",
      "--to",
      `http://127.0.0.1:${server.addr.port}/`,
    ]),
    cwd: tmp.path,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  await started;
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  const m = stderr.match(/Stopped \(Ctrl-C\)\. Sent (\d+) of 30: (\d+) answered 2xx, 0 failed\./);
  assert.ok(m, stderr);
  // The send in flight finished (answered, counted); nothing was sent after it.
  assert.equal(Number(m[1]), received);
  assert.equal(answered, received);
  assert.ok(received < 30);
});
