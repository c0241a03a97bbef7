/**
 * hooktap's module graph as `deno info --json` sees it: every module under
 * src/ plus the entry points, with each import marked static or dynamic and
 * runtime or type-only. tests/architecture_test.ts checks the house rules on it.
 */
import { relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { LAZY_CALL } from "../src/cli/lazy.ts";

/** One import: to whom, and how. */
export interface Edge {
  /** The imported module: a path relative to the repository (`src/x.ts`), or `node:x` / `npm:x`. */
  readonly to: string;
  /** `import("...")` rather than a static import. */
  readonly dynamic: boolean;
  /** `import type`: erased, never loaded. */
  readonly typeOnly: boolean;
  /**
   * `lazyImport("src/x.ts")` (src/cli/lazy.ts): a dynamic import Deno cannot see ahead, so out of the
   * start-up graph; `deno info` does not report it, the graph adds it from the source (also `dynamic`).
   */
  readonly lazy?: boolean;
}

/** Module → its imports. */
export type Graph = Map<string, Edge[]>;

const ROOT = new URL("../", import.meta.url);
const ROOT_PATH = fromFileUrl(ROOT);

function _name(specifier: string): string {
  return specifier.startsWith("file:")
    ? relative(ROOT_PATH, fromFileUrl(specifier)).replaceAll("\\", "/")
    : specifier;
}

/** The repository's shipped modules: mod.ts, main.ts and every non-test file under src/. */
export async function shippedModules(): Promise<string[]> {
  const out = ["mod.ts", "main.ts"];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (/\.tsx?$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name)) out.push(path);
    }
  }
  await walk("src/");
  return out.sort();
}

/** The graph of `roots` (repository paths) and everything they import, from `deno info --json`. */
export async function moduleGraph(roots: readonly string[]): Promise<Graph> {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_graph_" });
  try {
    const entry = `${dir}/roots.ts`;
    await Deno.writeTextFile(
      entry,
      roots.map((r) => `import ${JSON.stringify(new URL(r, ROOT).href)};\n`).join(""),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", fromFileUrl(new URL("deno.json", ROOT)), entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno info failed:\n${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: {
        specifier: string;
        dependencies?: {
          code?: { specifier?: string };
          type?: { specifier?: string };
          isDynamic?: boolean;
        }[];
      }[];
      redirects: Record<string, string>;
    };
    const resolve = (s: string) => info.redirects[s] ?? s;
    const graph: Graph = new Map();
    for (const module of info.modules) {
      if (module.specifier.startsWith(`file://${dir}`) || module.specifier.includes("/hooktap_graph_")) {
        continue;
      }
      const edges: Edge[] = [];
      for (const dep of module.dependencies ?? []) {
        const target = dep.code?.specifier ?? dep.type?.specifier;
        if (target === undefined) continue;
        edges.push({
          to: _name(resolve(target)),
          dynamic: dep.isDynamic === true,
          typeOnly: dep.code === undefined,
        });
      }
      const name = _name(module.specifier);
      if (module.specifier.startsWith("file:") && name !== "src/cli/lazy.ts") {
        const code = await Deno.readTextFile(new URL(module.specifier));
        for (const m of code.matchAll(LAZY_CALL)) {
          edges.push({ to: m[1]!, dynamic: true, typeOnly: false, lazy: true });
        }
      }
      graph.set(name, edges);
    }
    return graph;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every module reached from `from` through the edges `follow` accepts (`from` included). */
export function reach(
  graph: Graph,
  from: readonly string[],
  follow: (from: string, edge: Edge) => boolean,
): Set<string> {
  const seen = new Set<string>();
  const stack = [...from];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const edge of graph.get(name) ?? []) if (follow(name, edge)) stack.push(edge.to);
  }
  return seen;
}

/** A path from `from` to a module `target` accepts, through accepted edges, for a failure message. */
export function pathTo(
  graph: Graph,
  from: string,
  target: (name: string) => boolean,
  follow: (from: string, edge: Edge) => boolean,
): string[] | undefined {
  const previous = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (target(name)) {
      const path = [name];
      for (let p = previous.get(name); p; p = previous.get(p)) path.unshift(p);
      return path;
    }
    for (const edge of graph.get(name) ?? []) {
      if (!follow(name, edge) || previous.has(edge.to)) continue;
      previous.set(edge.to, name);
      queue.push(edge.to);
    }
  }
  return undefined;
}

/** Strongly connected components with more than one module (Tarjan), over the edges `follow` accepts. */
export function circles(graph: Graph, follow: (from: string, edge: Edge) => boolean): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const edge of graph.get(v) ?? []) {
      if (!follow(v, edge)) continue;
      const w = edge.to;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return out;
}
