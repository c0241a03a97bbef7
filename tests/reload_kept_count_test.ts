/**
 * A reload that moves two endpoints' forward from one unnamed URL to another: each endpoint's line counts
 * its own events kept undelivered (the target's name, the URL, is the same for both; the count was the sum).
 * @module
 */
import assert from "node:assert/strict";
import { startApp, until, unusedPort } from "./_app.ts";
import { startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("a reload that moves two endpoints off one unnamed URL counts each endpoint's kept events", async () => {
  await using tmp = await withTmpDir();
  const gone = unusedPort(); // the app stopped here: both endpoints' events wait
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [` +
    `{ name: "a", path: "/a", method: "POST", forward: "http://localhost:${port}/in" }, ` +
    `{ name: "b", path: "/b", method: "POST", forward: "http://localhost:${port}/in" }] };\n`;
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(gone));
  await using dev = await startDev(tmp.path);
  for (const path of ["/a", "/a", "/b"]) {
    const r = await fetch(`${dev.url}${path}`, { method: "POST", body: "{}" });
    await r.body?.cancel();
  }
  await until(() => (dev.stdout().match(/nothing listens/g) ?? []).length >= 2, `the waits\n${dev.stdout()}`);
  await Deno.writeTextFile(file, config(moved.port));
  await until(
    () => (dev.stderr().match(/kept undelivered/g) ?? []).length >= 2,
    `the reload's lines\n${dev.stderr()}`,
  );
  const line = (endpoint: string) =>
    dev.stderr().split("\n").find((l) => l.includes(`- forward target ${endpoint} `));
  assert.match(line("a") ?? "", /2 queued events were kept undelivered/, dev.stderr());
  assert.match(line("b") ?? "", /1 queued event was kept undelivered/, dev.stderr());
  assert.equal(await dev.stop(), 0);
});
