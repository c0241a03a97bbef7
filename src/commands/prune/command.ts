import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap prune`. */
export const options = defineOptions({
  keep: { value: "count", description: "keep only the newest N events" },
  olderThan: { value: "age", description: "remove events older than this (7d, 12h, 30m)" },
  json: { description: "print the result as one JSON object on stdout" },
});

/** `hooktap prune`. */
export const prune = defineCommand({
  name: "prune",
  description: "Remove old events from .hooktap/events.jsonl and give the space back (safe while dev runs)",
  options,
  after: "\nWhile `hooktap dev` runs, it does the pruning itself (asked over .hooktap/control.sock),\n" +
    "so there is never a second writer. A crash at any point leaves the old log or the new one.\n" +
    "\nExamples:\n  hooktap prune --keep 100000\n  hooktap prune --older-than 7d\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/prune/run.ts"),
});
