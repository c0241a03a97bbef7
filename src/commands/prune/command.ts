import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions, duration, integer } from "../../cli/spec.ts";

/** Options of `hooktap prune`. */
export const options = defineOptions({
  keep: {
    // 0 would remove every event without the confirmation `rm --all` asks for.
    kind: integer({ placeholder: "count", min: 1, note: "to remove every event: hooktap rm --all" }),
    description: "keep only the newest N events",
  },
  olderThan: {
    // Above 0, as the config's retention.olderThan: 0 would remove every event, as --keep 0 would.
    kind: duration({ placeholder: "age", bare: null }),
    description: "remove events older than this (7d, 12h, 30m)",
  },
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
