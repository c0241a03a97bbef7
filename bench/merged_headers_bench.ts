/**
 * Issue 22: the cost of flagging Deno.serve's merged `Cookie` (record v2
 * `merged`) per request, beside reading the header list alone (today), on a
 * GitHub delivery's 14 headers. `deno bench bench/merged_headers_bench.ts`
 * @module
 */
import { mergedHeaders } from "../src/receiver/headers.ts";

const headers: [string, string][] = [
  ["Host", "abc.ngrok.app"],
  ["User-Agent", "GitHub-Hookshot/7f0d6f6"],
  ["Content-Length", "7391"],
  ["Accept", "*/*"],
  ["Content-Type", "application/json"],
  ["X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"],
  ["X-GitHub-Event", "issues"],
  ["X-GitHub-Hook-ID", "292430182"],
  ["X-GitHub-Hook-Installation-Target-ID", "79929171"],
  ["X-GitHub-Hook-Installation-Target-Type", "repository"],
  ["X-Hub-Signature", "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6"],
  ["X-Hub-Signature-256", "sha256=d57c68ca6f92289e6987922ff26938930f6e66a2d161ef06abdf1859230aa23c"],
  ["X-Forwarded-For", "140.82.115.1"],
  ["X-Forwarded-Proto", "https"],
];
// Deno.serve's request: no rawHeaders (node:http's requests have them and skip the check).
const denoRequest = { rawHeaders: undefined } as never;
let sink = 0;

Deno.bench("today: take the header list (nothing checked)", { group: "headers", baseline: true }, () => {
  sink += headers.length;
});
Deno.bench("issue 22: check it for a merged Cookie", { group: "headers" }, () => {
  sink += mergedHeaders(denoRequest, headers)?.length ?? 0;
});
