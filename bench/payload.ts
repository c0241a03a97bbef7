/**
 * The request every write-side run sends: a GitHub `push` delivery of about
 * 1.6 KB with the headers GitHub sends, signed like GitHub signs it; and
 * what the send engine's benches deliver it to.
 * @module
 */
import { fileURLToPath } from "node:url";
import type { CapturedEvent } from "../src/event/record.ts";
import type { ForwardTarget } from "../src/send/target.ts";
import { freePort, onCore, type Server, startServer } from "./proc.ts";

/** The shared secret the signature is made with. */
export const SECRET = "bench-secret";

const commit = (n: number) => ({
  id: `5c1b7f9e2a4d8c3b6e0f1a2d3c4b5a69788${n}f0e1d`,
  distinct: true,
  message: `Fix flaky retry in webhook delivery (#${4200 + n})`,
  timestamp: "2025-11-21T14:03:12+01:00",
  url: `https://github.com/octo-org/octo-repo/commit/5c1b7f9e2a4d8c3b6e0f1a2d3c4b5a69788${n}f0e1d`,
  author: { name: "Mona Lisa", email: "mona@example.com", username: "monalisa" },
  committer: { name: "GitHub", email: "noreply@github.com", username: "web-flow" },
  added: [],
  removed: [],
  modified: ["src/delivery/retry.ts"],
});

/** A GitHub-push-style JSON body, about 1.6 KB. */
export const BODY: string = JSON.stringify({
  ref: "refs/heads/main",
  before: "9049f1265b7d61be4a8904a9a27120d2064dab3b",
  after: "5c1b7f9e2a4d8c3b6e0f1a2d3c4b5a697881f0e1",
  repository: {
    id: 186853002,
    name: "octo-repo",
    full_name: "octo-org/octo-repo",
    private: false,
    owner: { name: "octo-org", login: "octo-org", id: 6811672, type: "Organization" },
    html_url: "https://github.com/octo-org/octo-repo",
    default_branch: "main",
  },
  pusher: { name: "monalisa", email: "mona@example.com" },
  sender: { login: "monalisa", id: 583231, type: "User", site_admin: false },
  created: false,
  deleted: false,
  forced: false,
  compare: "https://github.com/octo-org/octo-repo/compare/9049f1265b7d...5c1b7f9e2a4d",
  commits: [commit(1), commit(2)],
  head_commit: null,
});

async function hmacSha256Hex(secret: string, data: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(data)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** GitHub's delivery headers for {@linkcode BODY}, as `[name, value]` pairs. */
export async function githubHeaders(body: string = BODY): Promise<[string, string][]> {
  return [
    ["Accept", "*/*"],
    ["Content-Type", "application/json"],
    ["User-Agent", "GitHub-Hookshot/5e4a1f2"],
    ["X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"],
    ["X-GitHub-Event", "push"],
    ["X-GitHub-Hook-ID", "292430182"],
    ["X-GitHub-Hook-Installation-Target-ID", "79929171"],
    ["X-GitHub-Hook-Installation-Target-Type", "repository"],
    ["X-Hub-Signature-256", `sha256=${await hmacSha256Hex(SECRET, body)}`],
  ];
}

/**
 * The record `dev` stores for the push delivery ({@linkcode BODY} with GitHub's {@linkcode githubHeaders}),
 * marked for a forward target at `to`: what the send engine's benches queue and read back.
 */
export function pushRecord(
  id: string,
  headers: [string, string][],
  to: string,
): CapturedEvent {
  return {
    v: 1,
    id,
    endpoint: "github",
    receivedAt: new Date().toISOString(),
    method: "POST",
    path: "/webhook",
    query: "",
    headers: [["Host", "127.0.0.1:8787"], ...headers],
    body: BODY,
    bodyEncoding: "utf8",
    bodySize: BODY_BYTES,
    remoteAddr: "127.0.0.1",
    provider: "github",
    type: "push",
    forward: { to, mode: "queue" },
  };
}

const BODY_BYTES = new TextEncoder().encode(BODY).length;

/**
 * What the send engine's benches deliver to: a bare app on core 1 (stop it when done), a maker of push
 * records for it (ids in order) and its queue target in arrival order with `concurrency` in flight.
 */
export async function pushSink(concurrency: number): Promise<{
  app: Server;
  port: number;
  event: () => CapturedEvent;
  target: ForwardTarget;
}> {
  const port = freePort();
  const bare = fileURLToPath(new URL("./servers/bare.ts", import.meta.url));
  const app = await startServer(onCore(1, [Deno.execPath(), "run", "--allow-net", bare, String(port)]), {
    cwd: Deno.cwd(),
    port,
  });
  const headers = await githubHeaders();
  let seq = 0;
  const to = `http://127.0.0.1:${port}/`;
  return {
    app,
    port,
    event: () => pushRecord(`evt_20261125_01M84MVMHQ2YM5SNFB${String(seq++).padStart(8, "0")}`, headers, to),
    target: {
      name: `127.0.0.1:${port}`,
      to,
      mode: "queue",
      timeoutMs: 30_000,
      concurrency,
      attempts: 6,
      backoffMs: [1000, 3000, 9000, 27000, 30000],
      insecure: false,
      endpoint: "github",
      order: "arrival", // dev's default
    },
  };
}
