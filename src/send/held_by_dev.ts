/**
 * Events the `hooktap dev` running in the project still has waiting for a
 * forward target (never answered there yet, or retrying): that dev sends them
 * as soon as the app listens, so a replay now could deliver them twice.
 * `hooktap replay` (src/commands/replay/) and mcp's `replay` tool
 * (src/mcp/replay.ts) ask this one rule: an undelivered bulk replay leaves
 * them, a single one is sent with a warning. Each says so in its own words.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { StorePaths } from "../store/paths.ts";
import { runningDev } from "../store/read/dev_lock.ts";
import { factOf, readDeliveriesOf } from "./deliveries_read.ts";
import { eventDelivery, type TargetOutcome } from "./delivery_state.ts";

/** What {@linkcode heldByDev} found: the running dev's pid and the ids of the events it still has waiting. */
export interface HeldByDev {
  /** The events dev sends (they wait for a target it sends to now); may be empty when `kept` is not. */
  ids: Set<string>;
  pid: number;
  /**
   * Events waiting only for targets the running dev no longer sends to (a reload removed them, or it started
   * without them), per `endpoint target`: dev keeps them and never sends them, so a replay may.
   */
  kept: Map<string, { endpoint: string; target: string; ids: string[] }>;
}

/**
 * Whether a forward target still waits for `dev`: neither delivered nor given up (every attempt failed),
 * as `findUndelivered` counts it due (./undelivered.ts).
 */
export function stillWaiting(target: Pick<TargetOutcome, "outcome">): boolean {
  return target.outcome !== "delivered" && target.outcome !== "failed";
}

/**
 * The events of `events` the `hooktap dev` running at `paths` still has waiting for one of their forward
 * targets, or `undefined` when no dev runs or it has none of them. An event one target of which gave up
 * while another still waits is held: its combined state reads `failed`, but dev still sends it there.
 * `sendsTo`: the name of the target a replay sends each event to; an event is then held only when dev
 * still has it waiting for that target (a replay to a target that has it already races no dev send). An
 * event waiting only for targets dev no longer sends to (its lock names those it does) is not held: it is
 * in `kept`, which dev never sends.
 */
export async function heldByDev(
  paths: StorePaths,
  events: readonly CapturedEvent[],
  sendsTo?: (event: CapturedEvent) => string | undefined,
): Promise<HeldByDev | undefined> {
  const forwarded = events.filter((e) => e.forward !== undefined);
  if (forwarded.length === 0) return undefined;
  const dev = await runningDev(paths);
  if (dev === undefined) return undefined;
  const records = await readDeliveriesOf(paths.deliveries, forwarded, { as: factOf }); // what the state reads
  const ids = new Set<string>();
  const kept: HeldByDev["kept"] = new Map();
  // A dev that says which targets it sends to holds only what waits for one of them.
  const sends = (e: CapturedEvent, target: string) =>
    dev.targets === undefined || (dev.targets.get(e.endpoint)?.includes(target) ?? false);
  for (const e of forwarded) {
    const waiting = eventDelivery(e, records.get(e.id)).targets.filter(stillWaiting);
    const to = sendsTo?.(e);
    const mine = waiting.filter((t) => to === undefined || t.name === to);
    if (mine.some((t) => sends(e, t.name))) ids.add(e.id);
    else if (mine.length > 0) {
      const target = mine[0]!.name;
      const key = `${e.endpoint} ${target}`;
      let group = kept.get(key);
      if (group === undefined) kept.set(key, group = { endpoint: e.endpoint, target, ids: [] });
      group.ids.push(e.id);
    }
  }
  return ids.size === 0 && kept.size === 0 ? undefined : { ids, pid: dev.pid, kept };
}
