/**
 * The forward targets events wait for, for `hooktap doctor`: the events after the forwarding watermark that no
 * attempt delivered or gave up on, by the one delivery-state model (src/send/undelivered.ts, what `dev` resumes
 * at start and `replay --undelivered` sends), counted per endpoint and target, with the target's URL from the
 * config (or the event's mark for a target the config no longer names).
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import type { WaitingTarget } from "../../doctor/facts.ts";
import { laneTarget } from "../../send/resume_scan.ts";
import { findUndelivered } from "../../send/undelivered.ts";
import { targetNameOf } from "../../send/target.ts";
import type { StorePaths } from "../../store/paths.ts";

/** Each (endpoint, target) with events waiting for it, most waiting first. */
export async function waitingTargets(
  paths: StorePaths,
  config: ResolvedConfig | null,
): Promise<WaitingTarget[]> {
  const found = await findUndelivered(paths, { afterWatermark: true });
  const lanes = new Map<string, WaitingTarget>();
  for (const event of found.pending) {
    const endpoint = config?.endpoints.find((e) => e.name === event.endpoint);
    const targets = endpoint?.targets ?? [];
    const mark = event.forward;
    for (const due of found.due.get(event.id) ?? []) {
      // The target dev delivers it to: the rule of its start (src/send/resume_scan.ts).
      const configured = laneTarget(event, due, targets);
      const target = configured?.name ?? due;
      const url = configured?.to ??
        (mark !== undefined && targetNameOf(mark.to) === due ? mark.to : undefined);
      if (url === undefined) continue;
      const key = `${event.endpoint}\n${target}\n${url}`;
      const lane = lanes.get(key) ??
        {
          endpoint: event.endpoint,
          target,
          url,
          count: 0,
          forwarded: configured !== undefined,
          hasEndpoint: endpoint !== undefined,
        };
      lane.count++;
      lanes.set(key, lane);
    }
  }
  return [...lanes.values()].sort((a, b) => b.count - a.count);
}
