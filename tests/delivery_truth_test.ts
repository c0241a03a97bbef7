/**
 * Issue 33.1 through the real CLI and the inspector's API: one delivery
 * state per (event, target) that every reader agrees on, over one store
 * with forward successes, a given-up event, manual sends to other URLs (one
 * that fails, one that works) and a resume after a kill.
 */
import assert from "node:assert/strict";
import { freePort, startApp, until } from "./_app.ts";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

interface Seen {
  outcome: string;
  status: number | null;
  attempts: number;
}

Deno.test("logs, logs --json, inspect, the inspector's API and replay --undelivered agree on each event's delivery", async () => {
  await using tmp = await withTmpDir();
  let slow = true;
  await using app = startApp(0, (req) => {
    const n = (JSON.parse(new TextDecoder().decode(req.body)) as { n: number }).n;
    if (n === 2) return { status: 500 };
    if (n === 3 && slow) return { status: 200, delayMs: 4000 }; // in flight when dev is killed
    return { status: 200 };
  });
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
      `forward: { to: "http://127.0.0.1:${app.port}/hook", retry: { attempts: 2, backoff: [100] } } }] };\n`,
  );
  const ids: string[] = [];
  {
    const dev = await startDev(tmp.path);
    for (const n of [0, 1, 2, 3]) {
      const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n }) });
      ids.push((await r.json()).id);
      if (n < 3) {
        await until(() => dev.stdout().includes(ids[n]!) && /\[(200|500)\]/.test(dev.stdout()), "sent");
      }
    }
    await until(() => /gave up/.test(dev.stdout()), "the given-up event");
    await until(() => app.requests.length >= 5, "the slow delivery in flight");
    assert.equal(await dev.stop("SIGKILL"), 137);
  }
  slow = false;
  const [a, b, c, d] = ids as [string, string, string, string];
  // A manual send of A to a URL where nothing listens fails; one of B to another URL works.
  const dead = freePort();
  const oops = await runCli(["replay", a, "--to", `http://127.0.0.1:${dead}/oops`], { cwd: tmp.path });
  assert.notEqual(oops.code, 0);
  await using other = startApp(0, () => ({ status: 202 }));
  const ok = await runCli(["replay", b, "--to", `http://127.0.0.1:${other.port}/other`], { cwd: tmp.path });
  assert.equal(ok.code, 0, ok.stderr);
  // The next dev resumes D (its delivery was cut by the kill) and serves the inspector.
  await using dev = await startDev(tmp.path);
  // Under a loaded machine (the whole suite at once) this has taken over 15 s: 30 s, and what dev said if not.
  await until(() => /\[200\].*again after a restart/.test(dev.stdout()), "D resumed and delivered", 30_000)
    .catch((error) => {
      throw new Error(`${error.message}\n--- dev's stdout:\n${dev.stdout()}\n--- stderr:\n${dev.stderr()}`);
    });
  const [, inspector, token] = dev.stderr().match(/Inspect: (http:\/\/127\.0\.0\.1:\d+\/)\?token=(\w+)/)!;
  const auth = { headers: { "x-hooktap-token": token! } }; // the inspector serves only its user

  const expected: Record<string, Seen> = {
    [a]: { outcome: "delivered", status: 200, attempts: 1 },
    [b]: { outcome: "delivered", status: 200, attempts: 1 },
    [c]: { outcome: "failed", status: 500, attempts: 2 },
    [d]: { outcome: "delivered", status: 200, attempts: 1 },
  };
  // logs --json
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
  const byLogs = new Map<string, { delivery: Seen & { others?: { name: string; outcome: string }[] } }>(
    logs.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((e) => [e.id, e]),
  );
  for (const id of ids) {
    const { outcome, status, attempts } = byLogs.get(id)!.delivery;
    assert.deepEqual({ outcome, status, attempts }, expected[id], `logs --json of ${id}`);
  }
  assert.deepEqual(byLogs.get(a)!.delivery.others?.map((o) => [o.name, o.outcome]), [
    [`127.0.0.1:${dead}/oops`, "failed"],
  ]);
  assert.deepEqual(byLogs.get(b)!.delivery.others?.map((o) => [o.name, o.outcome]), [
    [`127.0.0.1:${other.port}/other`, "delivered"],
  ]);
  // logs (text)
  const text = await runCli(["logs"], { cwd: tmp.path, env: { COLUMNS: "250" } });
  assert.doesNotMatch(text.stdout, /→ err/);
  assert.equal((text.stdout.match(/→ 200(?! \()/g) ?? []).length, 3, text.stdout);
  assert.match(text.stdout, /→ 500 \(2 tries\)/);
  // inspect --json and the inspector's API, event by event; the list's state too.
  const list = await (await fetch(`${inspector}api/events`, auth)).json() as {
    events: { id: string; delivery: string }[];
  };
  for (const id of ids) {
    const inspect = JSON.parse((await runCli(["inspect", id, "--json"], { cwd: tmp.path })).stdout);
    assert.equal(inspect.delivery.outcome, expected[id]!.outcome, `inspect of ${id}`);
    assert.equal(inspect.delivery.status, expected[id]!.status);
    const api = await (await fetch(`${inspector}api/events/${id}`, auth)).json();
    assert.equal(api.delivery, expected[id]!.outcome, `the inspector's API of ${id}`);
    assert.deepEqual(api.targets.map((t: { outcome: string }) => t.outcome), [expected[id]!.outcome]);
    assert.equal(list.events.find((e) => e.id === id)?.delivery, expected[id]!.outcome, `the list of ${id}`);
  }
  const inspectA = await runCli(["inspect", a], { cwd: tmp.path });
  assert.match(inspectA.stdout, /Forwarding\n {2}127\.0\.0\.1:\d+\/hook: delivered \(200, 1 attempt\)/);
  assert.match(
    inspectA.stdout,
    /Sent elsewhere.*\n {2}127\.0\.0\.1:\d+\/oops: failed \(no answer, 1 replay\)/,
  );
  // The inspector's delivery filter agrees.
  const failed = await (await fetch(`${inspector}api/events?delivery=failed`, auth)).json() as {
    events: { id: string }[];
  };
  assert.deepEqual(failed.events.map((e) => e.id), [c]);
  assert.equal(await dev.stop(), 0);
  // replay --undelivered sends exactly the one event every reader calls failed.
  await using collector = startApp(0, () => ({ status: 200 }));
  const undelivered = await runCli(
    ["replay", "--undelivered", "--to", `http://127.0.0.1:${collector.port}/hook`],
    { cwd: tmp.path },
  );
  assert.equal(undelivered.code, 0, undelivered.stderr);
  assert.deepEqual(collector.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).n), [2]);
  const after = await runCli(["logs", "--json"], { cwd: tmp.path });
  const cAfter = after.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.id === c);
  assert.equal(
    cAfter.delivery.outcome,
    "delivered",
    "a send on behalf of the target that missed it counts for it",
  );
  // A replay to the forward target of an event dev had delivered: counted apart, never read as a retry.
  const again = await runCli(["replay", a], { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr);
  const cells = await runCli(["logs"], { cwd: tmp.path, env: { COLUMNS: "250" } });
  const line = (id: string) => cells.stdout.split("\n").find((l) => l.includes(id.slice(-8))) ?? "";
  assert.match(line(a), /→ 200 \(1 try, 1 replay\)/, cells.stdout);
  assert.match(line(c), /→ 200 \(2 tries, 1 replay\)/, cells.stdout);
  const aJson = JSON.parse((await runCli(["inspect", a, "--json"], { cwd: tmp.path })).stdout);
  assert.deepEqual(
    aJson.delivery.targets.map((t: Seen & { replays?: number }) => [t.outcome, t.attempts, t.replays]),
    [["delivered", 2, 1]],
  );
  assert.match(
    (await runCli(["inspect", a], { cwd: tmp.path })).stdout,
    /Forwarding\n {2}127\.0\.0\.1:\d+\/hook: delivered \(200, 1 attempt, 1 replay\)/,
  );
});
