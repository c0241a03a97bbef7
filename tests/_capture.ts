/**
 * Fills a temp project's store the real way: a `hooktap dev` subprocess
 * and real HTTP requests to it.
 * @module
 */
import { startDev, writeFile } from "./_helpers.ts";

/** Three endpoints: two POST, one GET. */
export const MULTI_CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "default", path: "/webhook", method: "POST" },
    { name: "github", path: "/github", method: "POST" },
    { name: "ping", path: "/ping", method: "GET" },
  ],
};
`;

/** One request to send to `hooktap dev`. */
export interface Send {
  path: string;
  method?: string;
  query?: string;
  headers?: [string, string][];
  body?: string | Uint8Array;
}

/** Writes `config` into `dir`, runs `hooktap dev`, sends `requests` in order; resolves to their event ids. */
export async function captureEvents(dir: string, requests: Send[], config = MULTI_CONFIG): Promise<string[]> {
  await writeFile(dir, "hooktap.config.ts", config);
  await using dev = await startDev(dir);
  const ids: string[] = [];
  for (const r of requests) {
    const url = `${dev.url}${r.path}${r.query ? `?${r.query}` : ""}`;
    const body = r.body === undefined ? undefined : typeof r.body === "string" ? r.body : r.body as BodyInit;
    const res = await fetch(url, {
      method: r.method ?? "POST",
      headers: r.headers ?? [],
      body: body ?? null,
    });
    await res.body?.cancel();
    if (res.status !== 200) throw new Error(`dev answered ${res.status} to ${url}`);
    ids.push(res.headers.get("x-hooktap-event-id")!);
  }
  const code = await dev.stop("SIGINT");
  if (code !== 0) throw new Error(`hooktap dev exited ${code}:\n${dev.stderr()}`);
  return ids;
}

/** The shortest prefix of `id` (at least `min` characters of its ULID) that no other id shares. */
export function uniqueUlidPrefix(id: string, others: readonly string[], min = 4): string {
  const ulid = id.slice(13);
  for (let n = min; n <= ulid.length; n++) {
    const p = ulid.slice(0, n);
    if (others.every((o) => o === id || !o.slice(13).startsWith(p))) return p;
  }
  return ulid;
}
