import { lazyImport } from "../../cli/lazy.ts";
import { choice, defineCommand, defineOptions, integer, path, url } from "../../cli/spec.ts";
import { FORMAT_NAMES, FORMAT_SUMMARIES } from "../../names.ts";
import { FILTER_OPTIONS } from "../_shared/filters.ts";

/** Options of `hooktap export`. */
export const options = defineOptions({
  format: {
    short: "f",
    kind: choice(FORMAT_NAMES, "format"),
    default: "jsonl",
    description: FORMAT_NAMES.map((name) => `${name} (${FORMAT_SUMMARIES[name]})`).join(", "),
  },
  output: {
    short: "o",
    kind: path("file"),
    description: "write to this file (owner-only) instead of stdout",
  },
  to: { kind: url(), description: "curl: send to this URL instead of the original one (curl only)" },
  limit: {
    short: "n",
    kind: integer({ placeholder: "count", min: 1 }),
    description: "only the newest N matching events",
  },
  ...FILTER_OPTIONS,
});

/** `hooktap export`. */
export const exportCommand = defineCommand({
  name: "export",
  description: "Write stored events as HAR, curl commands, JSON Lines or raw body bytes",
  arguments: [{
    name: "event-id",
    description: "events by id or unique id prefix (none: every event the filters match)",
    variadic: true,
    complete: "event-id",
  }],
  options,
  after: "\nEvents are written in arrival order. Without ids or filters, every stored event.\n" +
    "\nExamples:\n  hooktap export 01HXA5 --format curl\n" +
    "  hooktap export --endpoint github --since 1d --format har -o github.har\n" +
    "  hooktap export --grep cus_42 --format jsonl > found.jsonl\n" +
    "  hooktap export 01HXA5 --format raw > body.bin\n" +
    "  hooktap export --provider stripe --type invoice.paid -n 1 --format fixture > tests/fixtures/paid.jsonl\n",
  load: () => lazyImport<typeof import("./run.ts")>("src/commands/export/run.ts"),
});
