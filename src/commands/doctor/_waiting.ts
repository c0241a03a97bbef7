/**
 * The forward targets events wait for, for `hooktap doctor`: the events after the forwarding watermark that no
 * attempt delivered or gave up on, by the one delivery-state model (src/send/undelivered.ts, what `dev` resumes
 * at start and `replay --undelivered` sends), counted per endpoint and target, with the target's URL from the
 * config (or the event's mark for a target the config no longer names).
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import type { WaitingTarget } from "../../doctor/facts.ts";
import { findUndelivered } from "../../send/undelivered.ts";
import type { StorePaths } from "../../store/paths.ts";

/** Each (endpoint, target) with events waiting for it, most waiting first. */
export async function waitingTargets(
  paths: StorePaths,
  config: ResolvedConfig | null,
): Promise<WaitingTarget[]> {
  const found = await findUndelivered(paths, { afterWatermark: true });
  const lanes = new Map<string, WaitingTarget>();
  for (const event of found.pending) {
    const targets = config?.endpoints.find((e) => e.name === event.endpoint)?.targets ?? [];
    const plain = event.forward?.targets === undefined; // one target, marked by its URL (a v1 mark)
    for (const due of found.due.get(event.id) ?? []) {
      // A plain mark's name is derived from its URL: the endpoint's one configured target is the same one.
      const configured = targets.find((t) => t.name === due) ??
        (plain && targets.length === 1 ? targets[0] : undefined);
      const target = configured?.name ?? due;
      const url = configured?.to ?? (plain ? event.forward?.to : undefined);
      if (url === undefined) continue;
      const key = `${event.endpoint}\n${target}`;
      const lane = lanes.get(key) ?? { endpoint: event.endpoint, target, url, count: 0 };
      lane.count++;
      lanes.set(key, lane);
    }
  }
  return [...lanes.values()].sort((a, b) => b.count - a.count);
}
