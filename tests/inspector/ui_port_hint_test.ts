/**
 * The inspector's port hints name the options of the command that runs it: `hooktap ui` said "Pick another
 * port with --ui-port ..., or turn it off with --no-ui" and "(--ui-port to choose)", dev's options, which
 * `ui` refuses as unknown. The real CLI as subprocesses in a temp dir, a port held on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, runCli, withTmpDir, writeFile } from "../_helpers.ts";

/** Starts `hooktap ui args` and reads its stderr until `until` shows, or it exits. */
async function uiStderr(
  dir: string,
  args: string[],
  until: RegExp,
): Promise<{ stderr: string; code?: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, ["ui", ...args]),
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { stderr, code: (await child.status).code };
    stderr += value;
    if (until.test(stderr)) break;
  }
  child.kill("SIGINT");
  reader.releaseLock();
  await child.stderr.cancel().catch(() => {});
  await child.status;
  return { stderr };
}

Deno.test("hooktap ui: a taken --port is refused naming ui's --port, not dev's --ui-port or --no-ui", async () => {
  await using tmp = await withTmpDir();
  using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (held.addr as Deno.NetAddr).port;
  const ui = await uiStderr(tmp.path, ["--port", String(port)], /Press Ctrl-C/);
  assert.equal(ui.code, 1, ui.stderr);
  assert.match(
    ui.stderr,
    new RegExp(`Cannot start the inspector on 127\\.0\\.0\\.1:${port}: address already in use`),
  );
  assert.match(ui.stderr, /Pick another port with --port \(or `ui: \{ port \}` in hooktap\.config\.ts\)\./);
  assert.doesNotMatch(ui.stderr, /--ui-port|--no-ui/);

  // dev still names its own options.
  const dev = await runCli(["dev", "--port", "0", "--ui-port", String(port)], {
    cwd: tmp.path,
    timeoutMs: 30_000,
  });
  assert.notEqual(dev.code, 0, dev.stderr);
  assert.match(
    dev.stderr,
    /Pick another port with --ui-port \(or `ui: \{ port \}` .*\), or turn it off with --no-ui\./,
  );
});

Deno.test("hooktap ui: when its default port is taken, the note names ui's --port", async () => {
  await using tmp = await withTmpDir();
  // The default port is the config's receiver port + 1: held here.
  using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (held.addr as Deno.NetAddr).port;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: ${port - 1}, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  const ui = await uiStderr(tmp.path, [], /Press Ctrl-C/);
  assert.equal(ui.code, undefined, ui.stderr);
  assert.match(
    ui.stderr,
    new RegExp(`note: port ${port} was taken, so the inspector is on \\d+ \\(--port to choose\\)`),
  );
  assert.doesNotMatch(ui.stderr, /--ui-port|--no-ui/);
});
