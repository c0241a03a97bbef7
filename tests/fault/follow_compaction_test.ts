/**
 * `hooktap logs --follow` while `hooktap dev` receives a load and `prune` and
 * `rm` compact the log under it (a copy renamed over events.jsonl): every
 * acknowledged event is printed once, none of the older ones again, and no
 * line is called damaged.
 * @module
 */
import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { LOAD_CONFIG, runLoad } from "./_load.ts";

const small = (i: number) => ({
  kind: "json" as const,
  contentType: "application/json",
  bytes: new TextEncoder().encode(JSON.stringify({ i, pad: "y".repeat(300 + (i % 5) * 200) })),
});

async function ids(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${dir}/.hooktap/events.jsonl`);
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l).id as string);
}

Deno.test("logs --follow across prune and rm under load: each acknowledged event printed once, no old one again, nothing called damaged", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const first = await runLoad({ port: dev.port, connections: 4, total: 300, body: small });
  assert.deepEqual([...first.statuses], [[200, 300]]);

  const follower = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, ["logs", "--follow", "-n", "0", "--json"]),
    cwd: tmp.path,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const printed: string[] = [];
  let stderr = "";
  const pumpOut = (async () => {
    let rest = "";
    for await (const chunk of follower.stdout.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      const lines = rest.split("\n");
      rest = lines.pop()!;
      for (const l of lines) if (l) printed.push(JSON.parse(l).id);
    }
  })();
  const pumpErr = (async () => {
    for await (const chunk of follower.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  try {
    // The follower is waiting once it has opened the log: give it a moment, then load and compact.
    await new Promise((r) => setTimeout(r, 1500));
    let acked = 0;
    const load = runLoad({
      port: dev.port,
      connections: 4,
      total: 1500,
      body: small,
      onAck: (n) => (acked = n),
    });
    while (acked < 300) await new Promise((r) => setTimeout(r, 20));
    const victim = (await ids(tmp.path))[5]!;
    const rm = await runCli(["rm", victim, "--yes"], { cwd: tmp.path });
    assert.equal(rm.code, 0, rm.stderr);
    while (acked < 800) await new Promise((r) => setTimeout(r, 20));
    // A prune removes what it does not keep, read or not: let the follower (it polls every 200 ms; slower on a
    // busy machine) reach the events acknowledged so far, and keep more than it can fall behind meanwhile.
    const readUpTo = acked; // this load's events acknowledged so far (the follower prints only these)
    const caughtUp = Date.now() + 20_000;
    while (printed.length < readUpTo && Date.now() < caughtUp) await new Promise((r) => setTimeout(r, 20));
    const pruned = await runCli(["prune", "--keep", "400"], { cwd: tmp.path });
    assert.equal(pruned.code, 0, pruned.stderr);
    const during = await load;
    assert.deepEqual([...during.statuses], [[200, 1500]]);
    const want = new Set(during.acked.keys());
    const deadline = Date.now() + 20_000;
    while (printed.length < want.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500)); // anything printed twice has had time to show
    assert.doesNotMatch(stderr, /damaged/, "no line of the log was damaged");
    assert.equal(new Set(printed).size, printed.length, "no event printed twice");
    for (const id of first.acked.keys()) assert.ok(!printed.includes(id), `old event ${id} printed again`);
    assert.deepEqual(new Set(printed), want, "every acknowledged event printed, nothing else");
  } finally {
    follower.kill("SIGTERM");
    await follower.status;
    await pumpOut.catch(() => {});
    await pumpErr.catch(() => {});
  }
  assert.equal(await dev.stop(), 0);
});
