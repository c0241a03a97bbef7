/**
 * The config's `mcp` field: what `hooktap mcp` (the server coding agents
 * start) may do beyond the defaults. Today one setting: `allowSendTo`, the
 * URLs besides loopback and the config's forward targets that its `trigger`
 * and `replay` tools may send to. An agent can be steered by the payloads it
 * reads, so anything else is refused. Pure.
 * @module
 */
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** `mcp` as a user writes it. */
export interface McpConfig {
  /**
   * Base URLs `hooktap mcp` may also send to (`https://staging.example.com`, or with a path prefix:
   * `https://staging.example.com/hooks/`). Loopback and the forward targets are always allowed.
   * @default []
   */
  allowSendTo?: readonly string[];
}

/** `mcp` resolved. */
export interface ResolvedMcp {
  /** The allowed base URLs, parsed. */
  readonly allowSendTo: readonly string[];
}

/** Fields of `mcp`. */
export const MCP_FIELDS: readonly string[] = ["allowSendTo"];

/** Checks `mcp`, reporting problems with their field path. */
export function checkMcp(value: unknown, issues: Issues): ResolvedMcp | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    issues.push(
      `mcp must be an object like { allowSendTo: ["https://staging.example.com"] }, got ${show(value)}`,
    );
    return undefined;
  }
  checkKeys(value, MCP_FIELDS, "mcp", "an mcp", issues);
  const list = value.allowSendTo;
  if (list === undefined) return { allowSendTo: [] };
  if (!Array.isArray(list)) {
    issues.push(
      `mcp.allowSendTo must be a list of URLs like ["https://staging.example.com"], got ${show(list)}`,
    );
    return { allowSendTo: [] };
  }
  const allowed: string[] = [];
  list.forEach((item: unknown, i) => {
    const at = `mcp.allowSendTo[${i}]`;
    let url: URL | undefined;
    try {
      if (typeof item === "string") url = new URL(item);
    } catch { /* reported below */ }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      issues.push(
        `${at} must be an http:// or https:// URL like "https://staging.example.com", got ${show(item)}`,
      );
      return;
    }
    if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
      issues.push(`${at} must be a base URL without a query, fragment or credentials, got ${show(item)}`);
      return;
    }
    allowed.push(url.href);
  });
  return { allowSendTo: allowed };
}
