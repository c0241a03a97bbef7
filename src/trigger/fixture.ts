/**
 * `trigger --fixture FILE`: a JSON file of one's own steps, sent in order,
 * each signed as its provider signs: `{"steps": [{"event": "invoice.paid",
 * "set": {"data.object.amount_paid": 5000}, "unset": ["data.object.metadata"]},
 * {"event": "charge.succeeded", "body": {...}}]}` (or the array alone). An
 * event is one of the provider's catalog; `set` (created when missing) and
 * `unset` change its payload; `body` replaces it. Pure: the caller reads the file.
 * @module
 */
import { UsageError } from "../errors.ts";
import type { TriggerStep } from "./run.ts";

const KEYS = new Set(["event", "set", "unset", "body"]);

/**
 * The steps of a fixture file's text (`name` for messages).
 * @throws {UsageError} naming the problem and the fix.
 */
export function parseFixture(text: string, name: string): TriggerStep[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--fixture ${name} is not JSON (${error instanceof Error ? error.message : error}); ` +
        'write {"steps": [{"event": "invoice.paid", "set": {"data.object.amount_paid": 5000}}]}',
    );
  }
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "fixtures" in json) {
    throw new UsageError(
      `--fixture ${name} is a Stripe CLI fixture (its "fixtures" make API calls, which hooktap does not make); ` +
        'hooktap\'s fixture lists the events to send: {"steps": [{"event": "customer.created"}, ...]}',
    );
  }
  const steps = Array.isArray(json) ? json : (json as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new UsageError(
      `--fixture ${name} has no steps: give {"steps": [{"event": "..."}, ...]} with at least one event`,
    );
  }
  return steps.map((raw, i) => _step(raw, `--fixture ${name}, step ${i + 1}`));
}

function _step(raw: unknown, where: string): TriggerStep {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new UsageError(`${where} is not an object: write {"event": "invoice.paid"}`);
  }
  const o = raw as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !KEYS.has(k));
  if (extra.length > 0) {
    throw new UsageError(
      `${where}: unknown key ${extra.map((k) => `"${k}"`).join(", ")} (a step has event, set, unset, body)`,
    );
  }
  if (typeof o.event !== "string" || o.event === "") {
    throw new UsageError(`${where} names no event: give "event": "invoice.paid" (an event of the catalog)`);
  }
  const step: TriggerStep = { event: o.event };
  if (o.set !== undefined) {
    if (typeof o.set !== "object" || o.set === null || Array.isArray(o.set)) {
      throw new UsageError(`${where}: "set" is an object of path: value, like {"data.object.amount": 5000}`);
    }
    step.set = o.set as Record<string, unknown>;
  }
  if (o.unset !== undefined) {
    if (!Array.isArray(o.unset) || !o.unset.every((p) => typeof p === "string" && p !== "")) {
      throw new UsageError(`${where}: "unset" is a list of paths, like ["data.object.metadata"]`);
    }
    step.unset = o.unset as string[];
  }
  if (o.body !== undefined) {
    if (typeof o.body !== "object" || o.body === null) {
      throw new UsageError(`${where}: "body" is the JSON payload to send, an object or array`);
    }
    step.body = o.body;
  }
  return step;
}
