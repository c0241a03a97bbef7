/**
 * The terminal `hooktap dev` was left running in goes away: it is closed
 * (SIGHUP), or whoever read dev's stderr quits (`dev 2>&1 | head -1`). dev
 * stops as for Ctrl-C on a hangup (a clean stop: drained, summary, control
 * socket removed) unless it runs under `nohup`, whose promise it keeps; a
 * stderr nobody reads any more does not stop the receiver.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, LEAST_PRIVILEGE, startDev, withTmpDir, writeFile } from "../_helpers.ts";

const CONFIG =
  `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`;

async function post(url: string, body: string): Promise<number> {
  const res = await fetch(`${url}/webhook`, { method: "POST", body });
  await res.body?.cancel();
  return res.status;
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

const permissionsOf = {
  // Deno reads /proc/self/status only under -A: there it tells whether SIGHUP is ignored (nohup).
  "-A": ["-A"],
  // The npm launcher, `deno task dev` and the installed hooktap cannot read it: dev cannot tell, and stops.
  "least privilege": LEAST_PRIVILEGE,
};

/** Whether this test run itself ignores SIGHUP (run under nohup): its children then do too, as dev sees. */
const hangupIgnoredHere = (() => {
  try {
    const mask = Deno.readTextFileSync("/proc/self/status").match(/^SigIgn:\s*([0-9a-f]+)$/m)?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n;
  } catch {
    return false;
  }
})();

for (const [name, permissions] of Object.entries(permissionsOf)) {
  Deno.test({
    name: `SIGHUP (the terminal closed), ${name}: dev stops as for Ctrl-C, exit 0, with its summary`,
    ignore: name === "-A" && hangupIgnoredHere, // dev would rightly keep running, as under nohup
    fn: async () => {
      await using tmp = await withTmpDir();
      await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
      await using dev = await startDev(tmp.path, [], { permissions });
      assert.equal(await post(dev.url, "before the hangup"), 200);
      assert.ok(await exists(join(tmp.path, ".hooktap", "control.sock")));
      const code = await dev.stop("SIGHUP");
      assert.equal(code, 0, `a clean stop, not a death by signal:\n${dev.stderr()}`);
      assert.match(dev.stderr(), /Stopped\. 1 event captured this session/);
      const socket = await exists(join(tmp.path, ".hooktap", "control.sock"));
      assert.equal(socket, false, "its control socket is removed");
    },
  });
}

Deno.test({
  name:
    "under nohup (and -A, which lets dev see it), SIGHUP does not stop dev: it keeps receiving until Ctrl-C",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
    await using dev = await startDev(tmp.path, [], {
      wrap: ["nohup"],
      permissions: permissionsOf["-A"],
    });
    dev.child.kill("SIGHUP");
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(await post(dev.url, "after the hangup"), 200, dev.stderr());
    const code = await dev.stop("SIGINT");
    assert.equal(code, 0, dev.stderr());
    assert.match(dev.stderr(), /Stopped\. 1 event captured this session/);
  },
});

Deno.test("whoever read dev's stderr went away (dev 2>&1 | head -1): dev keeps receiving and stops cleanly", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, ["dev", "--port", "0", "--json", "--quiet"]),
    cwd: tmp.path,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  await child.stderr.cancel(); // nobody reads stderr: every write there fails with EPIPE, the banner's first
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
  }
  const ready = JSON.parse(stdout.split("\n")[0] || "null");
  assert.equal(ready?.type, "ready", `the ready object: ${stdout}`);
  const url = `http://127.0.0.1:${ready.port}`;
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push(await post(url, `event ${i}`));
  child.kill("SIGTERM");
  const { code } = await child.status;
  await reader.cancel();
  assert.deepEqual(statuses, [200, 200, 200]);
  assert.equal(code, 0);
  const lines = (await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl"))).split("\n").filter(
    Boolean,
  );
  assert.equal(lines.length, 3);
  assert.equal(await exists(join(tmp.path, ".hooktap", "control.sock")), false, "a clean stop");
});
