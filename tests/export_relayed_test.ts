/**
 * `export --format har` of many relayed events: each entry carries the answer its sender got, read from the
 * deliveries log for a batch of events at once. It read the log once per event, back from its end each time
 * (4,000 relayed events took 18 s to export; 0.35 s in batches). The reads are counted with strace (Linux),
 * not timed. Real `dev`, a real app over loopback, `export` as a subprocess.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, LEAST_PRIVILEGE, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const EVENTS = 600;

async function hasStrace(): Promise<boolean> {
  try {
    return (await new Deno.Command("strace", { args: ["-V"], stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "export --format har reads the relay answers of 600 events in a few reads, each with its own answer",
  ignore: Deno.build.os !== "linux" || !(await hasStrace()),
  async fn() {
    await using tmp = await withTmpDir();
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const { i } = await req.json();
      return new Response(`answer ${i}`, { status: 201, headers: { "content-type": "text/plain" } });
    });
    try {
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, ui: false, endpoints: [{ name: "r", path: "/r", method: "POST",\n` +
          `  forward: { to: "http://127.0.0.1:${app.addr.port}/", mode: "relay" } }] };\n`,
      );
      await using dev = await startDev(tmp.path, ["--quiet"]);
      let next = 0;
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (next < EVENTS) {
          const i = next++;
          const res = await fetch(`${dev.url}/r`, { method: "POST", body: JSON.stringify({ i }) });
          assert.equal(await res.text(), `answer ${i}`);
        }
      }));
      assert.equal(await dev.stop(), 0);

      const trace = join(tmp.path, "strace.txt");
      const exported = new Deno.Command("strace", {
        args: [
          "-f",
          "-e",
          "trace=openat",
          "-o",
          trace,
          Deno.execPath(),
          ...cliArgs(LEAST_PRIVILEGE, ["export", "--format", "har"]),
        ],
        cwd: tmp.path,
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      });
      const { code, stdout, stderr } = await exported.output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const entries: {
        request: { postData: { text: string } };
        response: { status: number; content: { text: string } };
      }[] = JSON.parse(new TextDecoder().decode(stdout)).log.entries;
      assert.equal(entries.length, EVENTS);
      for (const entry of entries) {
        const { i } = JSON.parse(entry.request.postData.text);
        assert.equal(entry.response.status, 201);
        assert.equal(entry.response.content.text, `answer ${i}`);
      }
      const reads = (await Deno.readTextFile(trace)).split("\n").filter((l) =>
        l.includes("deliveries.jsonl")
      ).length;
      assert.ok(reads <= 10, `the deliveries log was opened ${reads} times for ${EVENTS} events`);
      assert.ok(reads >= 1, "the trace sees the deliveries log opened (a test of the test)");
    } finally {
      await app.shutdown();
    }
  },
});
