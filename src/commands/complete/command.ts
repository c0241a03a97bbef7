import { lazyImport } from "../../cli/lazy.ts";
import { defineCommand, defineOptions } from "../../cli/spec.ts";

/** Options of `hooktap complete`. */
export const options = defineOptions({});

/** `hooktap complete` (hidden): what the completion scripts call at each TAB. */
export const complete = defineCommand({
  name: "complete",
  description: "Print completion candidates (called by the completion scripts)",
  hidden: true,
  arguments: [{ name: "words", description: "the words typed so far", variadic: true }],
  options,
  after: "\nExample:\n  hooktap complete -- inspect --endpoint ''\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/complete/run.ts"),
});
