/**
 * The filter options `logs`, `export` and bulk `replay` share.
 * @module
 */
import { defineOptions } from "../spec.ts";

/**
 * `--endpoint`, `--filter-method`, `--since`, `--until`, `--grep`, `--where`, `--has-header`, `--provider`,
 * `--type`, `--verdict`: one name, one meaning in every command (`-X/--method` and `-H/--header` are the
 * overrides of the commands that send).
 */
export const FILTER_OPTIONS = defineOptions({
  endpoint: {
    short: "e",
    value: "name",
    description: "only events of this endpoint",
    complete: "endpoint",
  },
  filterMethod: {
    short: "m",
    value: "method",
    description:
      "only events received with this HTTP method (renamed from --method: -X/--method is the override)",
    complete: "method",
  },
  since: {
    short: "s",
    value: "when",
    description: "only events newer than a duration (10m, 2h, 1d) or an ISO time",
  },
  until: { value: "when", description: "only events older than a duration (10m, 2h, 1d) or an ISO time" },
  grep: {
    short: "g",
    value: "text",
    description:
      "only events with this text in the body, a header value or the path (any case unless it has capitals)",
  },
  where: {
    short: "w",
    value: "field=value",
    repeatable: true,
    description:
      "only events whose JSON body has this field value: action=opened, data.object.id=cus_42, a!=b, a (repeatable)",
  },
  hasHeader: {
    value: "name=value",
    repeatable: true,
    description:
      "only events with this header: X-GitHub-Event=push, or a name alone (repeatable; renamed from --header: -H/--header is the override)",
  },
  provider: { value: "name", description: "only events from this sender (github, stripe, slack, ...)" },
  type: {
    value: "type",
    description: "only events of this type (exact, or a prefix: issues matches issues.opened)",
  },
  verdict: {
    value: "verdict",
    description: "only events with this signature verdict: valid, invalid, expired, unsigned, no-secret",
  },
});
