/**
 * The house rules of ARCHITECTURE.md, checked on the module graph that
 * `deno info --json` reports (static and dynamic imports; runtime and
 * type-only imports told apart).
 */
import assert from "node:assert/strict";
import { LAZY_CALL } from "../src/cli/lazy.ts";
import { circles, type Edge, type Graph, moduleGraph, pathTo, reach, shippedModules } from "./_graph.ts";
import { LAYERS, renderLayers, unitOf } from "./_layers.ts";

const ROOT = new URL("../", import.meta.url);
const shipped = await shippedModules();
const graph: Graph = await moduleGraph(shipped);

/** The commands: every folder src/commands/<name>/ with a declaration (`_shared/` is wiring, not a command). */
const COMMANDS = shipped.flatMap((p) => {
  const m = /^src\/commands\/([a-z][a-z0-9_]*)\/command\.ts$/.exec(p);
  return m ? [m[1]!] : [];
});
/** The command whose folder holds `module`, if any. */
function commandOf(module: string): string | undefined {
  const m = /^src\/commands\/([a-z][a-z0-9_]*)\//.exec(module);
  return m && COMMANDS.includes(m[1]!) ? m[1] : undefined;
}

const runtime = (_from: string, edge: Edge) => !edge.typeOnly;

/** What `hooktap <name>` may load: main.ts and everything it imports, except what other commands load lazily. */
function loadedBy(name: string) {
  return (_from: string, edge: Edge) =>
    !edge.typeOnly &&
    !(edge.dynamic && commandOf(edge.to) !== undefined && commandOf(edge.to) !== name);
}

Deno.test("the graph knows every command (a test of the test)", () => {
  for (const name of ["dev", "logs", "inspect", "replay", "complete"]) {
    assert.ok(COMMANDS.includes(name), name);
  }
  assert.ok(!COMMANDS.includes("_shared"));
  assert.ok(
    graph.get("src/commands/logs/command.ts")?.some((e) => e.lazy && e.to === "src/commands/logs/run.ts"),
  );
  // dev loads a node: module today (node:http for GET bodies), so the rule below can see one.
  assert.ok([...reach(graph, ["main.ts"], loadedBy("dev"))].some((m) => m.startsWith("node:")));
});

for (const name of ["logs", "inspect", "complete"]) {
  Deno.test(`\`hooktap ${name}\` loads no node: module, statically or dynamically`, () => {
    const follow = loadedBy(name);
    const loaded = [...reach(graph, ["main.ts"], follow)].filter((m) => m.startsWith("node:"));
    const why = loaded.map((m) => pathTo(graph, "main.ts", (n) => n === m, follow)!.join(" → "));
    assert.deepEqual(why, []);
  });
}

Deno.test("`hooktap dev` starts without a node: module: node:http and node:https come by dynamic import, when used", () => {
  // Static imports only: what dev loads before it listens. A node: module there costs ~6 ms of Deno's Node
  // layer (node:path pulled in assert, util and inspect).
  const follow = (from: string, edge: Edge) => loadedBy("dev")(from, edge) && !edge.dynamic;
  const start = [...reach(graph, ["main.ts", "src/commands/dev/run.ts"], follow)];
  assert.ok(start.includes("src/dev/session.ts"), "the start graph holds dev's session (a test of the test)");
  const loaded = start.filter((m) => m.startsWith("node:"));
  const why = loaded.map((m) =>
    pathTo(graph, "src/commands/dev/run.ts", (n) => n === m, follow)?.join(" → ") ?? m
  );
  assert.deepEqual(why, []);
});

Deno.test("`hooktap trigger` never loads node:crypto (it signs with WebCrypto; loading it costs ~20 ms)", () => {
  const follow = loadedBy("trigger");
  const loaded = [...reach(graph, ["main.ts"], follow)];
  assert.ok(loaded.includes("src/providers/hmac.ts"), "trigger signs through src/providers/hmac.ts");
  const path = pathTo(graph, "main.ts", (m) => m === "node:crypto" || m === "node:buffer", follow);
  assert.equal(path, undefined, path?.join(" → "));
});

Deno.test("no command imports another command's folder, and the shared wiring imports no command", () => {
  const problems: string[] = [];
  // The command list (src/cli.ts) knows every command by design; going through it is not an import of one.
  const follow = (_from: string, edge: Edge) => edge.to !== "src/cli.ts";
  for (const start of shipped.filter((m) => m.startsWith("src/commands/"))) {
    const name = commandOf(start);
    const other = (m: string) => commandOf(m) !== undefined && commandOf(m) !== name;
    const path = pathTo(graph, start, other, follow);
    if (path) problems.push(path.join(" → "));
  }
  assert.deepEqual(problems, []);
});

Deno.test("a command's declaration loads only the CLI engine (and the shared filter and send options) at start-up", () => {
  // A choice's values come from src/names.ts, which imports nothing (export's formats, the verdicts).
  const names = (m: string) => m === "src/names.ts" && graph.get(m)?.length === 0;
  const allowed = (m: string) =>
    m.startsWith("src/cli/") || m === "src/commands/_shared/filters.ts" ||
    m === "src/commands/_shared/send_options.ts" || names(m);
  const problems: string[] = [];
  const follow = (_from: string, edge: Edge) => !edge.typeOnly && !edge.dynamic;
  for (const name of COMMANDS) {
    const start = `src/commands/${name}/command.ts`;
    const path = pathTo(graph, start, (m) => m !== start && !allowed(m), follow);
    if (path) problems.push(path.join(" → "));
    // The action is loaded only when the command runs, out of the start-up graph (src/cli/lazy.ts).
    assert.ok(graph.get(start)?.some((e) => e.lazy && e.to === `src/commands/${name}/run.ts`), start);
  }
  assert.deepEqual(problems, []);
});

Deno.test("no import circle crosses a folder, type imports counted", () => {
  const dir = (m: string) => m.slice(0, m.lastIndexOf("/") + 1);
  const crossing = circles(graph, () => true).filter((c) => new Set(c.map(dir)).size > 1);
  assert.deepEqual(crossing, []);
});

/** Every import between two units of the layer table: `from-unit → to-unit: the first module edge seen`. */
function unitEdges(g: Graph): Map<string, string> {
  const out = new Map<string, string>();
  for (const [from, edges] of g) {
    const a = unitOf(from);
    for (const edge of edges) {
      const b = unitOf(edge.to);
      if (a === undefined || b === undefined || a === b) continue;
      const key = `${a} → ${b}`;
      if (!out.has(key)) out.set(key, `${from} → ${edge.to}${edge.typeOnly ? " (type)" : ""}`);
    }
  }
  return out;
}

Deno.test("the layer table names every folder of src/ once, and each row only rows below it", async () => {
  const units = new Set(["main.ts", "mod.ts"]);
  for await (const entry of Deno.readDir(new URL("src/", ROOT))) {
    if (entry.isDirectory || (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts"))) {
      units.add(entry.name);
    }
  }
  const rows = LAYERS.map((l) => l.unit);
  assert.deepEqual([...rows].sort(), [...units].sort());
  const below = new Set<string>();
  const problems: string[] = [];
  for (const layer of LAYERS) {
    for (const use of layer.uses) if (!below.has(use)) problems.push(`${layer.unit} → ${use} points up`);
    below.add(layer.unit);
  }
  assert.deepEqual(problems, []);
});

Deno.test("every import between folders, type imports counted, is one the layer table allows", () => {
  const allowed = new Map(LAYERS.map((l) => [l.unit, new Set(l.uses)]));
  const problems = [...unitEdges(graph)].filter(([key]) => {
    const [a, b] = key.split(" → ") as [string, string];
    return !allowed.get(a)?.has(b);
  }).map(([key, why]) => `${key} (${why})`);
  assert.deepEqual(problems, []);
});

Deno.test("the layer table allows nothing the code does not use (a row is the truth, not a wish)", () => {
  const used = new Set(unitEdges(graph).keys());
  const unused = LAYERS.flatMap((l) => l.uses.map((u) => `${l.unit} → ${u}`)).filter((k) => !used.has(k));
  assert.deepEqual(unused, []);
});

Deno.test("the layer checks see an upward type import and a circle of folders (tests of the test)", () => {
  const t = (to: string): Edge => ({ to, dynamic: false, typeOnly: true });
  const fake: Graph = new Map([
    ["src/store/write/writer.ts", [t("src/receiver/handler.ts")]],
    ["src/receiver/handler.ts", [t("src/store/write/writer.ts")]],
  ]);
  assert.deepEqual([...unitEdges(fake).keys()], ["store → receiver", "receiver → store"]);
  assert.equal(circles(fake, () => true).length, 1);
  assert.equal(circles(fake, runtime).length, 0);
});

Deno.test("ARCHITECTURE.md shows the layer table as it is (deno run -A scripts/layers_doc.ts rewrites it)", async () => {
  const doc = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  assert.ok(
    doc.includes(renderLayers()),
    "ARCHITECTURE.md's layer table is stale: deno run -A scripts/layers_doc.ts",
  );
});

Deno.test("one place starts a receiver: only src/dev/session.ts imports src/server/listen.ts", () => {
  // `hooktap dev` and `startReceiver` both start and stop through startDevSession.
  const importers = [...graph].filter(([, edges]) => edges.some((e) => e.to === "src/server/listen.ts"))
    .map(([module]) => module);
  assert.deepEqual(importers, ["src/dev/session.ts"]);
  assert.ok(graph.get("src/testing/receiver.ts")?.some((e) => e.to === "src/dev/session.ts"));
});

Deno.test("only main.ts calls Deno.exit", async () => {
  const files = [...shipped];
  for (const dir of ["scripts/", "bench/"]) {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      if (entry.isFile && entry.name.endsWith(".ts")) files.push(`${dir}${entry.name}`);
    }
  }
  const callers: string[] = [];
  for (const file of files) {
    if (file === "main.ts") continue;
    const code = (await Deno.readTextFile(new URL(file, ROOT)))
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
    if (/\bDeno\s*\.\s*exit\s*\(/.test(code)) callers.push(file);
  }
  assert.deepEqual(callers, []);
});

// Issue 36: what `deno info mod.ts` lists is what a config file that imports the types downloads and
// analyses, so type imports count as much as code (`import type` of a module that imports the store
// brought in 43 modules and node:path while the code alone loads 3).
Deno.test("importing `.` (mod.ts) reaches at most 25 modules, type and dynamic imports included, no node: module and no npm package", () => {
  // The graph holds the type-only edges this rule is about (a test of the test).
  assert.ok(graph.get("src/config/define.ts")?.some((e) => e.typeOnly && e.to === "src/config/types.ts"));
  const every = () => true;
  const reached = [...reach(graph, ["mod.ts"], every)].sort();
  const why = (m: string) => pathTo(graph, "mod.ts", (n) => n === m, every)!.join(" → ");
  assert.deepEqual(reached.filter((m) => m.startsWith("node:") || m.startsWith("npm:")).map(why), []);
  assert.ok(
    reached.length <= 25,
    `mod.ts reaches ${reached.length} modules:\n${reached.map(why).join("\n")}`,
  );
  assert.ok(!reached.includes("main.ts"), "mod.ts reaches the CLI");
});

/** What Deno reads before `hooktap <words>` starts: every import it can see ahead (static or a literal `import()`). */
const eager = (_from: string, edge: Edge) => !edge.typeOnly && !edge.lazy;
/**
 * The project modules Deno loads for `hooktap <command>`: the start-up graph, then the command's declaration's
 * and its action's (main.ts imports the declaration of the command that runs), and the whole command tree
 * (src/cli.ts) where the command reads it: the help, and `complete` through `ctx.commands()`.
 */
function loadedAtStart(command?: string, tree = command === undefined): string[] {
  const roots = command === undefined
    ? ["main.ts"]
    : ["main.ts", `src/commands/${command}/command.ts`, `src/commands/${command}/run.ts`];
  return [...reach(graph, [...roots, ...(tree ? ["src/cli.ts"] : [])], eager)].filter((m) => !m.includes(":"))
    .sort();
}

// Issue 36: `hooktap --help` opened 314 project files, every command's action and the trigger catalog
// among them, because their dynamic imports were literal. Measured with strace (docs/performance.md).
for (
  const [words, command, limit] of [["--help", undefined, 40], ["logs", "logs", 60], [
    "complete",
    "complete",
    60,
  ]] as const
) {
  Deno.test(`\`hooktap ${words}\` loads at most ${limit} project modules before it runs`, () => {
    const loaded = loadedAtStart(command, command !== "logs");
    assert.ok(loaded.length <= limit, `${loaded.length} modules:\n${loaded.join("\n")}`);
    // No command's action and no trigger catalog but the command's own.
    const others = loaded.filter((m) =>
      (/^src\/commands\/[^/]+\/run\.ts$/.test(m) && m !== `src/commands/${command}/run.ts`) ||
      /^src\/providers\/[^/]+\/(catalog\.ts|samples\/)/.test(m)
    );
    assert.deepEqual(others, []);
  });
}

// Issue 36: one `hooktap trigger <provider> <event> --to URL --secret S` read 69 project files ahead. What it
// does not need is imported when asked for: a config, dev's endpoint and side channel, hooktap's key pair,
// a fixture, a body file, the list, the store's reader, writer and paths, the other commands' declarations (50
// modules before those, 31 after).
Deno.test("`hooktap trigger` loads at most 32 project modules before it runs, and no node: module but https's", () => {
  const roots = ["main.ts", "src/commands/trigger/command.ts", "src/commands/trigger/run.ts"];
  const loaded = [...reach(graph, roots, eager)];
  const project = loaded.filter((m) => !m.includes(":")).sort();
  assert.ok(project.length <= 32, `${project.length} modules:\n${project.join("\n")}`);
  assert.ok(!project.includes("src/commands/logs/command.ts"), "another command's declaration");
  const asked = project.filter((m) =>
    /^src\/(store\/(read|write)\/|commands\/_shared\/context\.ts|config\/load)/.test(m) ||
    /^src\/trigger\/(keys|dev_target|side_channel|fixture|list)\.ts$/.test(m) ||
    /^src\/providers\/[^/]+\/(catalog|verify)\.ts$/.test(m)
  );
  assert.deepEqual(asked, []);
  // node:https sends to an https target: imported when one is sent to, never ahead of an http one.
  assert.deepEqual(loaded.filter((m) => m.startsWith("node:")), ["node:https"]);
  const ahead = (from: string, edge: Edge) => eager(from, edge) && !edge.dynamic;
  const path = pathTo(graph, "main.ts", (m) => m.startsWith("node:"), ahead);
  assert.equal(path, undefined, path?.join(" → "));
  assert.equal(pathTo(graph, "src/commands/trigger/run.ts", (m) => m.startsWith("node:"), ahead), undefined);
});

Deno.test("every lazyImport names a module that exists, the one its type names (src/cli/lazy.ts)", async () => {
  const problems: string[] = [];
  for (const [from, edges] of graph) {
    for (const edge of edges.filter((e) => e.lazy)) {
      if (!graph.has(edge.to)) problems.push(`${from}: ${edge.to} is not a shipped module`);
    }
    if (!from.endsWith(".ts") || from.includes(":") || from === "src/cli/lazy.ts") continue;
    const code = await Deno.readTextFile(new URL(from, ROOT));
    // Every call is one the tools find (the pack, the compile task and this graph read LAZY_CALL).
    const calls = code.match(/\blazyImport\s*[<(]/g)?.length ?? 0;
    const found = [...code.matchAll(LAZY_CALL)].length;
    if (calls !== found) {
      problems.push(`${from}: ${calls} lazyImport calls, ${found} in the form LAZY_CALL finds`);
    }
    for (const m of code.matchAll(/lazyImport<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)"/g)) {
      const typed = new URL(m[1]!, new URL(from, ROOT)).href;
      if (typed !== new URL(m[2]!, ROOT).href) problems.push(`${from}: typed as ${m[1]} but loads ${m[2]}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("the graph helpers find a cross-folder circle and a path to a command (tests of the test)", () => {
  const e = (to: string, dynamic = false): Edge => ({ to, dynamic, typeOnly: false });
  const fake: Graph = new Map([
    ["src/commands/a/command.ts", [e("src/commands/a/run.ts", true)]],
    ["src/commands/a/run.ts", [e("src/x/y.ts")]],
    ["src/x/y.ts", [e("src/commands/b/command.ts"), e("src/commands/a/run.ts")]],
    ["src/commands/b/command.ts", []],
  ]);
  assert.deepEqual(circles(fake, runtime), [["src/commands/a/run.ts", "src/x/y.ts"]]);
  assert.deepEqual(
    pathTo(fake, "src/commands/a/command.ts", (m) => m === "src/commands/b/command.ts", () => true),
    ["src/commands/a/command.ts", "src/commands/a/run.ts", "src/x/y.ts", "src/commands/b/command.ts"],
  );
});
