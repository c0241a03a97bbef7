/**
 * npm runs a bin through `sh -c`. A process manager's SIGTERM to npm's pid ends npm and that shell but reaches
 * no further: under npm, `dev` notices its parent is gone and stops with its summary, as for Ctrl-C, rather
 * than run on alone holding its port and data directory. Outside npm it runs on (`nohup hooktap dev &`).
 * @module
 */
import assert from "node:assert/strict";
import { until } from "./_app.ts";
import { cliArgs, withTmpDir, writeFile } from "./_helpers.ts";
import { shellQuote } from "../src/text/command_line.ts";

/** `dev` started as npm starts a bin: a child of `sh -c`, which does not exec it (a command follows it). */
async function devUnderShell(dir: string, env: Record<string, string>) {
  const line = [
    Deno.execPath(),
    ...cliArgs(["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"], [
      "dev",
      "--port",
      "0",
    ]),
  ].map((w) => shellQuote(w)).join(" ");
  const shell = new Deno.Command("sh", {
    args: ["-c", `${line}; exit $?`],
    cwd: dir,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const done = (async () => {
    for await (const chunk of shell.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })(); // ends when dev, the last writer, exits
  await until(async () => {
    try {
      return typeof JSON.parse(await Deno.readTextFile(`${dir}/.hooktap/dev.lock`)).port === "number";
    } catch {
      return false;
    }
  }, "dev to listen");
  const pid = JSON.parse(await Deno.readTextFile(`${dir}/.hooktap/dev.lock`)).pid as number;
  return { shell, pid, done, stderr: () => stderr };
}

/** Whether `pid` runs (Linux's /proc; a zombie does not count). */
function alive(pid: number): boolean {
  try {
    const state = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.[0];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}

Deno.test({
  name:
    "under npm, dev stops with its summary once the shell npm ran it through is gone; outside npm it runs on",
  ignore: Deno.build.os !== "linux", // /proc tells whether dev runs
  async fn() {
    for (const underNpm of [true, false]) {
      await using tmp = await withTmpDir();
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
      );
      // The test itself may run under npm (`npx deno task test`): both variables said outright.
      const env = underNpm
        ? { npm_command: "exec", npm_lifecycle_event: "" }
        : { npm_command: "", npm_lifecycle_event: "" };
      const dev = await devUnderShell(tmp.path, env);
      dev.shell.kill("SIGTERM"); // what npm's own SIGTERM does to its `sh -c`
      await dev.shell.status;
      if (underNpm) {
        await until(() => /Stopped\./.test(dev.stderr()), `dev to stop\n${dev.stderr()}`);
        assert.match(dev.stderr(), /npm, which started hooktap, has stopped \(its process is gone\)/);
        await dev.done;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 2500)); // over two of the watch's checks
        assert.ok(alive(dev.pid), `dev outside npm stopped with its shell:\n${dev.stderr()}`);
        assert.doesNotMatch(dev.stderr(), /npm, which started hooktap/);
        Deno.kill(dev.pid, "SIGINT");
        await dev.done;
        assert.match(dev.stderr(), /Stopped\./);
      }
    }
  },
});
