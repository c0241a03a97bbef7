/**
 * What `dev` prints about a tunnel it found: each endpoint's public URL,
 * and a warning when the tunnel forwards to another port.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import type { Tunnel } from "../tunnel/detect.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "../text/sanitize.ts";
import { padTo } from "./width.ts";

/** Whether a tunnel is known to forward to another port than `port`. */
export function wrongPort(tunnel: Tunnel, port: number): boolean {
  return tunnel.localPort !== undefined && tunnel.localPort !== port;
}

/** The lines about the tunnels found (or gone), for stderr. */
export function tunnelText(
  tunnels: readonly Tunnel[],
  endpoints: readonly Endpoint[],
  port: number,
  colors: Colors,
): string {
  if (tunnels.length === 0) {
    return colors.dim("Tunnel: none running any more (ngrok and cloudflared stopped answering).") + "\n";
  }
  const lines: string[] = [];
  for (const t of tunnels) {
    const to = t.localAddr === undefined ? "" : ` -> ${safeLine(t.localAddr)}`;
    lines.push(`Tunnel: ${t.tool} ${colors.cyan(safeLine(t.publicUrl))}${to}`);
    if (wrongPort(t, port)) {
      lines.push(colors.yellow(
        `warning: ${t.tool} forwards to port ${t.localPort}, but hooktap listens on ${port}: ` +
          `nothing sent to ${safeLine(t.publicUrl)} reaches hooktap. Restart it with \`ngrok http ${port}\`.`,
      ));
      continue;
    }
    const width = Math.max(...endpoints.map((e) => `${t.publicUrl}${e.path}`.length));
    for (const e of endpoints) {
      lines.push(
        `  ${padTo(safeLine(`${t.publicUrl}${e.path}`), width)}  ${colors.dim(`(${safeLine(e.name)})`)}`,
      );
    }
    if (t.localPort === undefined) {
      lines.push(colors.dim(
        `  (${t.tool} does not report which local port it forwards to: check it was started with --url http://localhost:${port})`,
      ));
    }
  }
  return lines.join("\n") + "\n";
}
