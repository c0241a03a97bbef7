/**
 * `deno task dev` and Ctrl-C in a real terminal (issue 33, point 7): the terminal sends SIGINT to the
 * foreground process group and `deno task` forwards it to its child too, so `dev` gets two SIGINTs a few
 * milliseconds apart. They are one interrupt: `dev` prints its summary and exits 0, and `deno task`
 * passes the 0 on.
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { withTmpDir } from "./_helpers.ts";
import { HAS_SCRIPT, plainLines, startCommandInPty } from "./_pty.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));

Deno.test({
  name: "deno task dev: one Ctrl-C in a terminal prints the summary and exits 0",
  ignore: !HAS_SCRIPT,
  async fn() {
    // A clone of the checkout (its sources linked) with a config on port 0, as `deno task dev` runs in a clone.
    await using tmp = await withTmpDir("hooktap_task_");
    for (const f of ["main.ts", "mod.ts", "src"]) await Deno.symlink(join(REPO, f), join(tmp.path, f));
    for (const f of ["deno.json", "deno.lock"]) await Deno.copyFile(join(REPO, f), join(tmp.path, f));
    await Deno.writeTextFile(
      join(tmp.path, "hooktap.config.ts"),
      'export default { port: 0, endpoints: [{ name: "w", path: "/webhook", method: "POST" }] };\n',
    );
    await using dev = startCommandInPty([Deno.execPath(), "task", "dev", "--no-ui"], { cwd: tmp.path });
    await dev.waitFor(/Press Ctrl-C to stop/);
    const port = Number(dev.screen().match(/listening on \S*http:\/\/localhost:(\d+)/)?.[1]);
    const res = await fetch(`http://127.0.0.1:${port}/webhook`, { method: "POST", body: "{}" });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await dev.waitFor(/\/webhook\S*\s+\S*200/);
    await dev.type("\x03");
    const code = await dev.exited();
    const screen = plainLines(dev.screen()).join("\n");
    assert.match(screen, /Stopped\. 1 event captured this session, in \.hooktap\/events\.jsonl\./, screen);
    assert.equal(code, 0, screen);
  },
});
