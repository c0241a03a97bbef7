/**
 * The config's `ui` field: where `hooktap dev` serves the inspector.
 * `ui: false` turns it off; `ui: { port }` picks its port (default: the
 * receiver's port + 1). Pure.
 * @module
 */
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** `ui` as a user writes it. */
export type UiConfig = false | {
  /** Port of the inspector on 127.0.0.1; `0` picks any free port. @default the receiver's port + 1 */
  port?: number;
};

/** `ui` resolved: off, or on with a port (`null`: the receiver's port + 1). */
export type ResolvedUi = false | { readonly port: number | null };

/** Fields of `ui`. */
export const UI_FIELDS: readonly string[] = ["port"];

/** Checks `ui`, reporting problems with their field path. */
export function checkUi(value: unknown, receiverPort: number, issues: Issues): ResolvedUi {
  if (value === undefined) return { port: null };
  if (value === false) return false;
  if (!isRecord(value)) {
    issues.push(`ui must be false (no inspector) or { port: 8788 }, got ${show(value)}`);
    return { port: null };
  }
  checkKeys(value, UI_FIELDS, "ui", "a ui", issues);
  const port = value.port;
  if (port === undefined) return { port: null };
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    issues.push(`ui.port must be an integer from 0 to 65535 (0 picks a free port), got ${show(port)}`);
    return { port: null };
  }
  if (port !== 0 && port === receiverPort) {
    issues.push(
      `ui.port must differ from port (${port}): the inspector never shares the receiver's port, ` +
        `which a tunnel would publish; use ${port + 1}`,
    );
    return { port: null };
  }
  return { port };
}
