import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap rm`. */
export const options = defineOptions({
  all: { description: "remove every stored event" },
  yes: { short: "y", description: "do not ask (needed when not on a terminal)" },
  json: { description: "print the result as one JSON object on stdout" },
});

/** `hooktap rm`. */
export const rm = defineCommand({
  name: "rm",
  description: "Remove events from .hooktap/events.jsonl for good (safe while dev runs)",
  arguments: [{
    name: "event-id",
    description: "events by id or unique id prefix",
    variadic: true,
    complete: "event-id",
  }],
  options,
  after: "\nAsks before removing when run on a terminal; elsewhere it needs --yes.\n" +
    "\nExamples:\n  hooktap rm evt_20240501_01HXA5B7\n  hooktap rm --all --yes\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/rm/run.ts"),
});
