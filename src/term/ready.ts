/**
 * The ready object of `hooktap dev`: printed first by `--json` and written
 * by `--ready-file` once the receiver listens, so a script can wait for it.
 * Pure.
 * @module
 */
import type { Endpoint } from "../config/types.ts";

/** `{"type":"ready", ...}`. */
export interface ReadyInfo {
  type: "ready";
  port: number;
  /** Base URL of the receiver, `http://127.0.0.1:8787`. */
  url: string;
  endpoints: { name: string; methods: string[]; path: string; url: string }[];
  /** Absolute path of the data directory. */
  dataDir: string;
  /** URL of the web inspector, `null` when it does not run. */
  inspector: string | null;
  pid: number;
}

/** The receiver's base URL for a bound hostname and port. */
export function receiverUrl(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Builds the ready object. */
export function readyInfo(options: {
  hostname: string;
  port: number;
  endpoints: readonly Endpoint[];
  dataDir: string;
  inspector?: string | null;
  pid?: number;
}): ReadyInfo {
  const url = receiverUrl(options.hostname, options.port);
  return {
    type: "ready",
    port: options.port,
    url,
    endpoints: options.endpoints.map((e) => ({
      name: e.name,
      methods: [...e.methods],
      path: e.path,
      url: url + e.path,
    })),
    dataDir: options.dataDir,
    inspector: options.inspector ?? null,
    pid: options.pid ?? Deno.pid,
  };
}
