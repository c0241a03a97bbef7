/**
 * The inspector wired into the CLI, as subprocesses in a temp dir: `dev`
 * serves it on its own port (printed in the banner) and pushes each stored
 * event to its live stream; `--no-ui`, `--ui-port`, config `ui`; `hooktap ui`
 * over stored events, following the log, and `--open` without a browser.
 */
import { cliArgs, LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { eventLine } from "../../src/event/record.ts";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { fixtureEvents } from "./_fixture.ts";

const CONFIG = (extra = "") =>
  `export default { port: 8787, endpoints: [{ name: "gh", path: "/gh", method: "POST" }]${extra} };\n`;

/** Reads SSE messages until one `event` message arrives. */
async function nextStreamed(response: Response): Promise<Record<string, unknown>> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/^event: event\ndata: .*\n\n/m.test(text)) text += (await reader.read()).value ?? "";
  await reader.cancel();
  return JSON.parse(text.match(/^data: (.*)$/m)![1]!);
}

/** The inspector's URL and token from the link the banner prints (`URL?token=TOKEN`). */
function inspectorUrl(stderr: string, before = "Inspect: "): { url: string; token: string } {
  const m = stderr.match(new RegExp(`${before}(http://127\\.0\\.0\\.1:\\d+/)\\?token=([0-9a-f]{64})\\s`));
  if (!m) throw new Error(`no inspector link in the banner:\n${stderr}`);
  return { url: m[1]!, token: m[2]! };
}

Deno.test("dev serves the inspector on its own port and streams each stored event live", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG());
  await using dev = await startDev(tmp.path);
  const { url, token } = inspectorUrl(dev.stderr());
  assertEquals(url === `${dev.url}/`, false);
  // Without the token the API and the stream answer nothing; the token is also in an owner-only file.
  for (const path of ["api/stream", "api/events", "api/info"]) {
    const refused = await fetch(`${url}${path}`);
    await refused.body?.cancel();
    assertEquals(refused.status, 401, path);
  }
  const file = `${tmp.path}/.hooktap/inspector-${new URL(url).port}.token`;
  assertEquals((await Deno.readTextFile(file)).trim(), token);
  assertEquals((await Deno.lstat(file)).mode! & 0o777, 0o600);
  const headers = { "x-hooktap-token": token };
  const stream = await fetch(`${url}api/stream`, { headers });
  const posted = fetch(`${dev.url}/gh`, { method: "POST", body: '{"live":1}' }).then((r) => r.json());
  const streamed = await nextStreamed(stream);
  const answer = await posted;
  assertEquals(streamed.id, answer.id);
  const list = await (await fetch(`${url}api/events`, { headers })).json();
  assertEquals(list.events[0].id, answer.id);
  // The receiver's port serves no inspector: a tunnel to it publishes nothing of it.
  const onReceiver = await fetch(`${dev.url}/api/events`);
  await onReceiver.body?.cancel();
  assertEquals(onReceiver.status, 404);
  assertEquals(await dev.stop(), 0);
  await assertGone(file); // removed when dev stops
});

async function assertGone(path: string): Promise<void> {
  const found = await Deno.lstat(path).then(() => true, () => false);
  assertEquals(found, false, `${path} is still there`);
}

Deno.test("dev --no-ui and config ui: false serve no inspector", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG());
  {
    await using dev = await startDev(tmp.path, ["--no-ui"]);
    assertEquals(dev.stderr().includes("Inspect:"), false);
  }
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(", ui: false"));
  await using dev = await startDev(tmp.path);
  assertEquals(dev.stderr().includes("Inspect:"), false);
});

Deno.test("dev: a --ui-port equal to the receiver's, or a bad config ui, is refused before binding", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG());
  const same = await runCli(["dev", "--port", "9876", "--ui-port", "9876"], { cwd: tmp.path });
  assertEquals(same.code, 2);
  assertIncludes(same.stderr, "--ui-port must differ from the receiver's port 9876");
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(', ui: { port: "x", prot: 1 }'));
  const bad = await runCli(["dev"], { cwd: tmp.path });
  assertEquals(bad.code, 78);
  assertIncludes(bad.stderr, "ui.port must be an integer from 0 to 65535");
  assertIncludes(bad.stderr, 'ui.prot is not a ui field: did you mean "port"?');
});

Deno.test("dev: an explicit --ui-port that is taken fails clearly, and stops the receiver", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG());
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const r = await runCli(["dev", "--port", "0", "--ui-port", String(port)], { cwd: tmp.path });
  assertEquals(r.code, 1);
  assertIncludes(r.stderr, `Cannot start the inspector on 127.0.0.1:${port}: address already in use`);
});

Deno.test("hooktap ui serves the stored events, follows the log, and says the URL when --open has no browser", async () => {
  await using tmp = await withTmpDir();
  const events = fixtureEvents(5);
  await writeFile(tmp.path, ".hooktap/events.jsonl", events.slice(0, 4).map(eventLine).join(""));
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE.concat("--allow-run"), ["ui", "--port", "0", "--open"]),
    cwd: tmp.path,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", PATH: "/nonexistent" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!stderr.includes("yourself")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`hooktap ui exited:\n${stderr}`);
    stderr += value;
  }
  try {
    const { url, token } = inspectorUrl(stderr, "on ");
    assertIncludes(stderr, "open the link above yourself");
    const headers = { authorization: `Bearer ${token}` };
    const list = await (await fetch(`${url}api/events`, { headers })).json();
    assertEquals(list.events.map((e: { id: string }) => e.id), events.slice(0, 4).map((e) => e.id).reverse());
    const stream = await fetch(`${url}api/stream`, { headers });
    await Deno.writeTextFile(`${tmp.path}/.hooktap/events.jsonl`, eventLine(events[4]!), { append: true });
    assertEquals((await nextStreamed(stream)).id, events[4]!.id);
  } finally {
    child.kill("SIGINT");
    reader.releaseLock();
    await child.stderr.cancel().catch(() => {});
    assertEquals((await child.status).code, 0);
  }
});
