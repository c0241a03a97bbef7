/**
 * The layer table: each folder of src/ (and each file at its top, and the
 * entry points) → the folders it may import, type imports counted. Rows go
 * bottom-up and a row names only rows above it in this list, so the table
 * reads as layers and cannot hold a circle. tests/architecture_test.ts checks
 * the code against it; ARCHITECTURE.md shows it (rendered by
 * {@linkcode renderLayers}; `deno run -A scripts/layers_doc.ts` rewrites it,
 * the test fails when it is stale).
 */

/** One row: a unit (`store` is src/store/, `ports.ts` is src/ports.ts) and what it may import. */
export interface Layer {
  readonly unit: string;
  readonly uses: readonly string[];
  /** One line for ARCHITECTURE.md: what lives there. */
  readonly what: string;
}

/** Bottom-up. */
export const LAYERS: readonly Layer[] = [
  // Leaves: import no other folder (query and ports.ts only other leaves).
  { unit: "errors.ts", uses: [], what: "typed errors" },
  { unit: "bytes.ts", uses: [], what: "byte helpers" },
  { unit: "names.ts", uses: [], what: "choice names (formats, verdicts)" },
  { unit: "version.ts", uses: [], what: "the version" },
  { unit: "timer.ts", uses: [], what: "a sleep that can be woken" },
  { unit: "text", uses: [], what: "values, paths, URL paths, escaping, suggestions" },
  { unit: "event", uses: [], what: "the record, deliveries, ids" },
  { unit: "tunnel", uses: [], what: "tunnel detection" },
  { unit: "query", uses: ["errors.ts", "event", "names.ts", "text"], what: "the filter language" },
  {
    unit: "ports.ts",
    uses: ["event", "query"],
    what: "EventSink, Forwarding, ForwardTarget, ResolvedForward, Retention (types)",
  },
  // The CLI engine (parse, help, the Output port, lazyImport); src/cli.ts, the command list, is near the top.
  { unit: "cli", uses: ["errors.ts", "text"], what: "CLI engine, Output port, lazyImport" },
  { unit: "schema", uses: [], what: "a JSON Schema checker (published payload schemas)" },
  {
    unit: "providers",
    uses: ["bytes.ts", "cli", "event", "schema"],
    what: "one folder per sender: facts, verification, challenges, re-signing, samples, schemas",
  },
  {
    unit: "store",
    uses: ["bytes.ts", "cli", "errors.ts", "event", "ports.ts", "query", "text", "timer.ts"],
    what: "events.jsonl: write side, scans",
  },
  {
    unit: "config",
    uses: ["errors.ts", "event", "ports.ts", "providers", "query", "store", "text"],
    what: "hooktap.config.*: load, check",
  },
  { unit: "route", uses: ["config", "store", "text"], what: "router, hints" },
  {
    unit: "receiver",
    uses: ["bytes.ts", "config", "errors.ts", "event", "ports.ts", "providers", "route"],
    what: "one request → one event",
  },
  {
    unit: "send",
    uses: [
      "bytes.ts",
      "config",
      "errors.ts",
      "event",
      "ports.ts",
      "providers",
      "query",
      "route",
      "store",
      "text",
    ],
    what: "forwarding, replay, deliveries",
  },
  { unit: "export", uses: ["event", "names.ts", "providers", "send", "text"], what: "export formats" },
  { unit: "server", uses: ["config", "errors.ts", "event", "receiver", "timer.ts"], what: "HTTP listeners" },
  {
    unit: "hub",
    uses: ["errors.ts", "event", "ports.ts", "receiver", "server", "store", "text", "timer.ts"],
    what: "the hub: server, client",
  },
  {
    unit: "trigger",
    uses: ["cli", "config", "errors.ts", "event", "providers", "route", "send", "store", "text"],
    what: "signed samples",
  },
  { unit: "completion", uses: ["cli", "config", "store", "text"], what: "shell completion" },
  {
    unit: "inspector",
    uses: ["config", "errors.ts", "event", "export", "hub", "query", "send", "store", "text"],
    what: "the browser UI",
  },
  {
    unit: "doctor",
    uses: ["config", "errors.ts", "hub", "receiver", "route", "send", "store", "text", "tunnel"],
    what: "setup checks",
  },
  {
    unit: "term",
    uses: [
      "cli",
      "config",
      "doctor",
      "errors.ts",
      "event",
      "hub",
      "providers",
      "receiver",
      "route",
      "send",
      "store",
      "text",
      "trigger",
      "tunnel",
    ],
    what: "everything that prints",
  },
  {
    unit: "dev",
    uses: [
      "config",
      "errors.ts",
      "event",
      "receiver",
      "route",
      "send",
      "server",
      "store",
      "term",
      "text",
      "trigger",
      "tunnel",
    ],
    what: "a running dev session",
  },
  {
    unit: "testing",
    uses: [
      "config",
      "dev",
      "errors.ts",
      "event",
      "export",
      "names.ts",
      "ports.ts",
      "providers",
      "receiver",
      "route",
      "send",
      "store",
      "trigger",
    ],
    what: "the test helpers users import",
  },
  {
    unit: "mcp",
    uses: [
      "config",
      "doctor",
      "errors.ts",
      "event",
      "export",
      "names.ts",
      "providers",
      "query",
      "route",
      "send",
      "store",
      "text",
      "trigger",
      "version.ts",
    ],
    what: "the MCP server's tools",
  },
  {
    unit: "commands",
    uses: [
      "cli",
      "completion",
      "config",
      "dev",
      "doctor",
      "errors.ts",
      "event",
      "export",
      "hub",
      "inspector",
      "mcp",
      "names.ts",
      "providers",
      "query",
      "receiver",
      "route",
      "send",
      "store",
      "term",
      "text",
      "trigger",
      "version.ts",
    ],
    what: "one folder per command",
  },
  { unit: "cli.ts", uses: ["cli", "commands", "version.ts"], what: "the command list" },
  {
    unit: "main.ts",
    uses: ["cli", "cli.ts", "commands", "errors.ts", "term", "version.ts"],
    what: "the executable",
  },
  { unit: "mod.ts", uses: ["config", "errors.ts", "event", "ports.ts", "query"], what: "the library" },
];

/**
 * The unit a repository path belongs to (`src/store/read/scan.ts` → `store`, `src/ports.ts` → `ports.ts`,
 * `main.ts` → `main.ts`); `undefined` for what is not the project's code (`node:x`, `npm:x`, deno.json).
 */
export function unitOf(path: string): string | undefined {
  if (path === "main.ts" || path === "mod.ts") return path;
  const m = /^src\/([^/]+)(\/)?/.exec(path);
  if (!m) return undefined;
  return m[1]!;
}

/** The table as ARCHITECTURE.md shows it: a fenced block, top layer first, wrapped at 110 columns. */
export function renderLayers(layers: readonly Layer[] = LAYERS): string {
  const width = Math.max(...layers.map((l) => l.unit.length)) + 1;
  const rows: string[] = [];
  for (const layer of [...layers].reverse()) {
    const words = layer.uses.length === 0 ? ["(nothing)"] : layer.uses;
    rows.push(`${layer.unit.padEnd(width)}${layer.what}`);
    let line = `${" ".repeat(width)}→`;
    for (const word of words) {
      if (line.length + 1 + word.length > 110) {
        rows.push(line);
        line = `${" ".repeat(width + 2)}${word}`;
      } else line += ` ${word}`;
    }
    rows.push(line);
  }
  return ["```text", ...rows, "```"].join("\n");
}
