/**
 * Choosing targets: which of an endpoint's targets an event goes to, by
 * each target's `when` (src/config/forward_when.ts) compiled once with the
 * one filter language (src/query/filter.ts). Run on the record after
 * its provider, type and verdict are known. Pure.
 * @module
 */
import type { ResolvedWhen } from "../config/forward_when.ts";
import type { CapturedEvent } from "../event/record.ts";
import { compileFilter } from "../query/filter.ts";

/** An event test: `true` when the event is taken. */
export type EventTest = (event: CapturedEvent) => boolean;

const ALL: EventTest = () => true;

/** Compiles a `when`: every key must match, each by one of its alternatives. Absent: every event. */
export function compileWhen(when: ResolvedWhen | undefined): EventTest {
  if (when === undefined || when.length === 0) return ALL;
  const keys = when.map((alternatives) => alternatives.map((f) => compileFilter(f).event));
  if (keys.length === 1 && keys[0]!.length === 1) return keys[0]![0]!;
  return (event) => {
    for (const alternatives of keys) {
      let any = false;
      for (const test of alternatives) {
        if (test(event)) {
          any = true;
          break;
        }
      }
      if (!any) return false;
    }
    return true;
  };
}

/** The targets whose test takes `event`, in their order. */
export function chooseTargets<T extends { readonly test: EventTest }>(
  targets: readonly T[],
  event: CapturedEvent,
): T[] {
  const chosen: T[] = [];
  for (const target of targets) if (target.test(event)) chosen.push(target);
  return chosen;
}
