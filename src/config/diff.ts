/**
 * What changed between two resolved configs, for the line `hooktap dev`
 * prints after a reload. Pure.
 * @module
 */
import type { Endpoint, ResolvedConfig } from "./types.ts";

/** The changes from one config to the next. */
export interface ConfigChanges {
  added: Endpoint[];
  removed: Endpoint[];
  /** Endpoints whose name stayed and whose path, methods or limit changed. */
  changed: { before: Endpoint; after: Endpoint }[];
  /** Set when `port` changed (it needs a restart). */
  port?: { from: number; to: number };
  /** Set when `maxBodySize` changed. */
  maxBodySize?: { from: number; to: number };
}

function same(a: Endpoint, b: Endpoint): boolean {
  return a.path === b.path && a.maxBodySize === b.maxBodySize && a.methods.join() === b.methods.join();
}

/** The changes from `before` to `after`, by endpoint name. */
export function diffConfigs(
  before: Pick<ResolvedConfig, "endpoints" | "port" | "maxBodySize">,
  after: Pick<ResolvedConfig, "endpoints" | "port" | "maxBodySize">,
): ConfigChanges {
  const old = new Map(before.endpoints.map((e) => [e.name, e]));
  const next = new Map(after.endpoints.map((e) => [e.name, e]));
  const changes: ConfigChanges = {
    added: after.endpoints.filter((e) => !old.has(e.name)),
    removed: before.endpoints.filter((e) => !next.has(e.name)),
    changed: after.endpoints.flatMap((e) => {
      const was = old.get(e.name);
      return was !== undefined && !same(was, e) ? [{ before: was, after: e }] : [];
    }),
  };
  if (before.port !== after.port) changes.port = { from: before.port, to: after.port };
  if (before.maxBodySize !== after.maxBodySize) {
    changes.maxBodySize = { from: before.maxBodySize, to: after.maxBodySize };
  }
  return changes;
}

/** Whether anything changed that the router serves (endpoints). */
export function endpointsChanged(changes: ConfigChanges): boolean {
  return changes.added.length + changes.removed.length + changes.changed.length > 0;
}
