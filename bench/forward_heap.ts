/**
 * What outlives a scavenge in `hooktap dev --forward-to` under load (issue 36): objects that survive V8's
 * young-generation collection are copied (the scavenge's cost) and, past a second one, promoted to the old
 * generation, whose marking runs on V8's worker threads. dev (CPU 0, with `--inspect` on a free port) forwards
 * to a bare app on CPU 1 under the forward bench's load (64 connections, 5 s, then drained), and V8's sampling
 * heap profiler, told to leave out the objects a scavenge collected, attributes the rest to the functions that
 * allocated them: bytes per event received, by function and by the innermost frame of hooktap's own code.
 *
 *     deno run -A bench/forward_heap.ts [--seconds 5] [--top 20] [--receive-only] [--main PATH/main.ts]
 *
 * Sampled (one sample per 2 KiB allocated, scaled back): a profile of shares, not an exact count.
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, onCore, waitForPort } from "./proc.ts";
import { devFlags } from "./write_side.ts";
import { bareAppFor, loadAndDrain } from "./forward.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    top: { type: "string", default: "20" },
    main: { type: "string" },
    "receive-only": { type: "boolean", default: false },
  },
});
const MAIN = values.main ?? fileURLToPath(new URL("../main.ts", import.meta.url));

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}

/** A minimal DevTools protocol client over the inspector's WebSocket. */
async function inspector(port: number) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json() as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (e) => {
    const message = JSON.parse(e.data) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
    waiting.delete(message.id ?? -1);
  };
  return {
    call: <T>(method: string, params: unknown = {}) =>
      new Promise<T>((resolve) => {
        const id = ++next;
        waiting.set(id, resolve as (result: unknown) => void);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

const dir = await Deno.makeTempDir({ prefix: "hooktap_fwd_heap_" });
let head: HeapNode;
let events: number;
try {
  const { app, port: appPort } = await bareAppFor(dir);
  await Deno.writeTextFile(
    join(dir, "hooktap.config.ts"),
    `export default { port: 8787, endpoints: [{ name: "github", path: "/webhook", method: "POST" }] };\n`,
  );
  const port = freePort();
  const inspectPort = freePort();
  const argv = onCore(0, [
    Deno.execPath(),
    "run",
    `--inspect=127.0.0.1:${inspectPort}`,
    ...devFlags(),
    `--allow-read=${join(dirname(MAIN), "src")}`, // --main: another checkout reads its own modules
    MAIN,
    "dev",
    "--quiet",
    "--port",
    String(port),
    ...(values["receive-only"] ? [] : ["--forward-to", `http://127.0.0.1:${appPort}/`]),
  ]);
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitForPort(port, child);
    const devtools = await inspector(inspectPort);
    await devtools.call("HeapProfiler.enable");
    await devtools.call("HeapProfiler.startSampling", {
      samplingInterval: 2048,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: false,
    });
    // Drained: the deliveries' allocations are in the profile too.
    events = (await loadAndDrain(port, dir, {
      seconds: Number(values.seconds),
      receiveOnly: values["receive-only"],
      pollMs: 50,
    })).stored;
    head = (await devtools.call<{ profile: { head: HeapNode } }>("HeapProfiler.stopSampling")).profile.head;
    devtools.close();
  } finally {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await app.stop();
  }
} finally {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

const name = (n: HeapNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/(src|bench|ext)\//, "$1/")}`;
const bySelf = new Map<string, number>();
const byOwn = new Map<string, number>();
let total = 0;
const walk = (n: HeapNode, own: string | undefined) => {
  const here = name(n);
  const inner = n.callFrame.url.includes("/src/") ? here : own;
  if (n.selfSize > 0) {
    total += n.selfSize;
    bySelf.set(here, (bySelf.get(here) ?? 0) + n.selfSize);
    byOwn.set(inner ?? "(no hooktap frame)", (byOwn.get(inner ?? "(no hooktap frame)") ?? 0) + n.selfSize);
  }
  for (const c of n.children ?? []) walk(c, inner);
};
walk(head!, undefined);
const say = (line: string) => {
  // deno-lint-ignore no-console
  console.log(line);
};
say(
  `dev ${values["receive-only"] ? "without forwarding" : "--forward-to"}: ${events!} events; ` +
    `allocated and outliving a scavenge: ${(total / events!).toFixed(0)} B per event`,
);
for (const [title, m] of [["by function", bySelf], ["by hooktap's innermost frame", byOwn]] as const) {
  say(`\n${title} (B per event)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    say(`${(v / events!).toFixed(0).padStart(7)}  ${k}`);
  }
}
