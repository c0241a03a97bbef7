/**
 * The forward targets events wait for, for `hooktap doctor`: the events after the forwarding watermark that no
 * attempt delivered or gave up on, by the one delivery-state model (src/send/undelivered.ts, what `dev` resumes
 * at start and `replay --undelivered` sends), counted per endpoint and target, with the target's URL from the
 * config (or the event's mark for a target the config no longer names).
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import type { GivenUpFact, WaitingTarget } from "../../doctor/facts.ts";
import { laneTarget, stillStored } from "../../send/resume_scan.ts";
import { findUndelivered, type Undelivered } from "../../send/undelivered.ts";
import { resendNeedsResign } from "../../send/session.ts";
import { openStoreReader } from "../../store/read/reader.ts";
import { targetNameOf } from "../../send/target.ts";
import type { StorePaths } from "../../store/paths.ts";

/** Each (endpoint, target) with events waiting for it, most waiting first. */
export async function waitingTargets(
  paths: StorePaths,
  config: ResolvedConfig | null,
  undelivered: Promise<Undelivered> = findUndelivered(paths, { afterWatermark: true }),
): Promise<WaitingTarget[]> {
  const found = await undelivered;
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

/**
 * The events given up on (every attempt to a forward target failed, none delivered since) that are still
 * stored, per endpoint, as `dev` reports them at start; `--resign` where the endpoint's signatures need it
 * and every one of its events arrived with a valid signature (`--resign` refuses one stored invalid, and
 * hooktap renews no signature that arrived expired, unsigned or unchecked).
 */
export async function givenUpFacts(
  paths: StorePaths,
  config: ResolvedConfig | null,
  undelivered: Promise<Undelivered> = findUndelivered(paths, { afterWatermark: true }),
): Promise<GivenUpFact[]> {
  const { givenUp } = await undelivered;
  if (givenUp.length === 0) return [];
  const reader = await openStoreReader(paths);
  if (reader === null) return [];
  using r = reader;
  const byEndpoint = new Map<string, GivenUpFact>();
  for (const group of await stillStored(r, givenUp)) {
    const endpoint = config?.endpoints.find((e) => e.name === group.endpoint);
    const fact = byEndpoint.get(group.endpoint) ??
      { endpoint: group.endpoint, count: 0, resign: resendNeedsResign(endpoint) };
    fact.count += group.events.length;
    if ((group.invalid?.length ?? 0) > 0 || group.unrenewed !== undefined) fact.resign = false;
    byEndpoint.set(group.endpoint, fact);
  }
  return [...byEndpoint.values()];
}
