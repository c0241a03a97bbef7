/**
 * The interactive setup, in a real pseudo-terminal: util-linux `script`
 * gives hooktap a terminal while the test types the answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO_JSON, MAIN, withCodeRead, withTmpDir } from "./_helpers.ts";

function shellLine(permissions: string[]): string {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${DENO_JSON}`,
    ...withCodeRead(permissions),
    MAIN,
    "dev",
  ]
    .map((a) => `'${a}'`).join(" ");
}

const hasScript = await new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "dev with no config in a terminal asks the setup questions, writes the config and starts",
  ignore: !hasScript,
  async fn() {
    await using tmp = await withTmpDir();
    const inner = shellLine(["-A"]);
    const child = new Deno.Command("script", {
      // A new pty is 0x0; clack would wrap every character onto its own line.
      args: ["-qec", `stty cols 120 rows 40; exec ${inner}`, "/dev/null"],
      cwd: tmp.path,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", TERM: "xterm" },
    }).spawn();
    const writer = child.stdin.getWriter();
    let screen = "";
    const reader = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of child.stdout) screen += dec.decode(chunk, { stream: true });
    })();
    const waitFor = async (pattern: RegExp, from: number) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(screen.slice(from))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const answer = async (prompt: RegExp, text: string) => {
      const from = screen.length;
      await waitFor(prompt, 0);
      await writer.write(new TextEncoder().encode(text + "\r"));
      await waitFor(/./, from);
    };
    try {
      await answer(/Port to listen on/, "0");
      await answer(/Endpoint name/, "github");
      await answer(/Endpoint path/, "/gh");
      await answer(/HTTP method/, "post");
      await waitFor(/listening on http:\/\/localhost:(\d+)/, 0);
      const port = Number(screen.match(/listening on http:\/\/localhost:(\d+)/)![1]);
      const config = await import(`file://${join(tmp.path, "hooktap.config.ts")}`);
      assert.deepEqual(config.default, {
        port: 0,
        endpoints: [{ name: "github", path: "/gh", method: "POST" }],
      });
      const r = await fetch(`http://127.0.0.1:${port}/gh`, { method: "POST", body: "{}" });
      assert.equal(r.status, 200);
      await r.body?.cancel();
    } finally {
      child.kill("SIGKILL");
      await writer.close().catch(() => {});
      await child.status;
      await reader.catch(() => {});
      await child.stderr.cancel().catch(() => {});
    }
  },
});

Deno.test({
  name: "dev in a terminal without the setup's permissions starts on the starter config instead of prompting",
  ignore: !hasScript,
  async fn() {
    await using tmp = await withTmpDir();
    const inner = shellLine(["--allow-net", "--allow-read=.", "--allow-write=.hooktap"]);
    const child = new Deno.Command("script", {
      args: ["-qec", `stty cols 120 rows 40; exec ${inner} --port 0`, "/dev/null"],
      cwd: tmp.path,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      env: { NO_COLOR: "1", TERM: "xterm" },
    }).spawn();
    let screen = "";
    const reader = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of child.stdout) screen += dec.decode(chunk, { stream: true });
    })();
    try {
      const deadline = Date.now() + 20_000;
      while (!/listening on/.test(screen) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.match(screen, /the interactive setup needs --allow-env --allow-write=\S+hooktap\.config\.ts/);
      assert.match(screen, /using the built-in starter config/);
      assert.match(screen, /listening on http:\/\/localhost:\d+/);
    } finally {
      child.kill("SIGKILL");
      await child.status;
      await child.stdin.close().catch(() => {});
      await reader.catch(() => {});
    }
  },
});
