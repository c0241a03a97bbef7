import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap inspect`. */
export const options = defineOptions({
  endpoint: {
    short: "e",
    value: "name",
    description: "show the newest event of this endpoint",
    complete: "endpoint",
  },
  json: { description: "print the stored record as one JSON line" },
  body: {
    description:
      "write only the exact raw body bytes to stdout (to a file or a pipe; refused on a terminal when " +
      "they hold control characters or binary data)",
  },
  force: { description: "with --body: write the raw bytes even to a terminal" },
  config: { short: "c", value: "path", description: "config file (to list the endpoint names)" },
});

/** `hooktap inspect`. */
export const inspect = defineCommand({
  name: "inspect",
  description: "Show one stored event in full: headers and decoded body",
  arguments: [{
    name: "event-id",
    description: "the event's id, or any unique prefix of it (default: the newest event)",
    complete: "event-id",
  }],
  options,
  after: "\nExamples:\n  hooktap inspect --endpoint default\n  hooktap inspect evt_20240501_01HXA5B7\n" +
    "  hooktap inspect 01HXA5 --body > payload.bin\n  hooktap inspect --json | jq .headers\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/inspect/run.ts"),
});
