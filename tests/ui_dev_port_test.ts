/**
 * `hooktap ui` while `dev` runs in the project: the default port it finds taken is dev's own inspector, and
 * it says so, with what to do.
 * @module
 */
import assert from "node:assert/strict";
import { until } from "./_app.ts";
import { cliArgs, LEAST_PRIVILEGE, startDev, withTmpDir, writeFile } from "./_helpers.ts";

/** A port P with P and P + 1 free (bound then released). */
function twoFreePorts(): number {
  for (let i = 0; i < 50; i++) {
    const a = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (a.addr as Deno.NetAddr).port;
    a.close();
    if (port > 65000) continue;
    try {
      Deno.listen({ hostname: "127.0.0.1", port: port + 1 }).close();
      return port;
    } catch { /* taken: another */ }
  }
  throw new Error("no two free ports in a row");
}

Deno.test("hooktap ui while dev runs: the port taken is dev's own inspector, and it says what to do", async () => {
  await using tmp = await withTmpDir();
  const port = twoFreePorts();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: ${port}, endpoints: [{ name: "hook", path: "/hook", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path, [], { configPort: true });
  const page = `${tmp.path}/.hooktap/inspector-${port + 1}.html`;
  await until(
    async () => await Deno.stat(page).then(() => true, () => false),
    `dev's inspector\n${dev.stderr()}`,
  );
  const ui = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, ["ui"]),
    cwd: tmp.path,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let text = "";
  const dec = new TextDecoder();
  const reader = ui.stderr.getReader();
  try {
    while (!/Press Ctrl-C/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
  } finally {
    ui.kill("SIGINT");
    reader.releaseLock();
    await ui.stderr.cancel();
    await ui.status;
  }
  // Before: only "note: port N was taken, so the inspector is on N+2 (--port to choose)".
  assert.match(
    text,
    new RegExp(
      `note: port ${port + 1} is the inspector of the hooktap dev running here \\(pid \\d+\\), which shows ` +
        `these events live: open its link \\(dev printed it; or open \\.hooktap/inspector-${
          port + 1
        }\\.html ` +
        `in a browser\\) and stop this one, or keep this one on ${port + 2} \\(--port to choose\\)`,
    ),
    text,
  );
});
