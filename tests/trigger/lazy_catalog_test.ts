/**
 * The large generated parts (GitHub's payloads and schemas) load only when
 * needed: never at start-up, the schemas only through inspect's schema hook,
 * and never for `logs`. Checked on the module graph `deno info` reports.
 */
import assert from "node:assert/strict";
import { type Edge, type Graph, moduleGraph, pathTo, shippedModules } from "../_graph.ts";

const graph: Graph = await moduleGraph(await shippedModules());
const staticOnly = (_from: string, edge: Edge) => !edge.typeOnly && !edge.dynamic;
const anyRuntime = (_from: string, edge: Edge) => !edge.typeOnly && edge.to !== "src/cli.ts";
const generated = (m: string) => /^src\/providers\/[^/]+\/(samples|schema)\/.*\.gen\.ts$/.test(m);

Deno.test("no static import reaches a generated catalog module or a provider's schema from main.ts or mod.ts", () => {
  assert.ok([...graph.keys()].some(generated), "the graph holds the generated modules (a test of the test)");
  for (const start of ["main.ts", "mod.ts"]) {
    // Nor a dynamic import Deno can see ahead: those it loads at start-up too (src/cli/lazy.ts).
    const seen = (_from: string, edge: Edge) => !edge.typeOnly && !edge.lazy;
    const path = pathTo(graph, start, (m) => generated(m) || m === "src/providers/github/schema.ts", seen);
    assert.equal(path, undefined, path?.join(" → "));
  }
});

Deno.test("GitHub's schemas load only through the schema hook's dynamic import, and `logs` cannot reach them", () => {
  const importers = [...graph].filter(([, edges]) =>
    edges.some((e) => e.to.startsWith("src/providers/github/schema/"))
  ).map(([m]) => m);
  assert.deepEqual(importers.sort(), [
    "src/providers/github/schema.ts",
    "src/providers/github/schema/index.gen.ts",
  ]);
  const perEvent = graph.get("src/providers/github/schema/index.gen.ts")!.filter((e) =>
    e.to !== "src/cli/lazy.ts"
  );
  assert.ok(
    perEvent.length > 70 && perEvent.every((e) => e.lazy),
    "each event's schemas load on their own",
  );
  const hook = graph.get("src/providers/index.ts")?.find((e) =>
    e.to === "src/providers/github/schema.ts" && !e.typeOnly
  );
  assert.equal(hook?.lazy, true, "the index imports GitHub's schema lazily (src/cli/lazy.ts)");
  const fromInspect = pathTo(
    graph,
    "src/commands/inspect/run.ts",
    (m) => m === "src/providers/github/schema.ts",
    staticOnly,
  );
  assert.equal(fromInspect, undefined, fromInspect?.join(" → "));
  for (const start of ["src/commands/logs/command.ts", "src/commands/logs/run.ts"]) {
    assert.ok(graph.has(start), start);
    const path = pathTo(graph, start, (m) => m.startsWith("src/schema/") || generated(m), anyRuntime);
    assert.equal(path, undefined, path?.join(" → "));
  }
});
