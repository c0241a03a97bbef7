/**
 * The override options every command that sends an event shares (`replay`
 * and `trigger`): `-H`, `--set`, `--set-new`, one declaration so one name has
 * one meaning (src/send/overrides.ts applies them). Declarations only.
 * @module
 */
import { defineOptions } from "../../cli/spec.ts";

/** `-H/--header`, `--set`, `--set-new`, `--unset` (trigger's; its STEP: scope is trigger's own). */
export const SEND_OPTIONS = defineOptions({
  header: {
    short: "H",
    value: "header",
    repeatable: true,
    description: 'add or replace a header: "Name: value" (empty value removes; repeatable)',
  },
  set: {
    value: "path=value",
    repeatable: true,
    description:
      "change one field of a JSON or form body: data.object.amount=5000 (repeatable; signed afresh); the field must exist",
  },
  setNew: { description: "let --set add a field the body does not have" },
  unset: {
    value: "path",
    repeatable: true,
    description: "remove one field of a JSON or form body: data.object.metadata (repeatable; signed afresh)",
  },
});
