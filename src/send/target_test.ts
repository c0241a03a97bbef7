import assert from "node:assert/strict";
import { isHopHeader } from "./target.ts";

Deno.test("isHopHeader: the hop-by-hop names, Host and Proxy-* in any case; nothing else", () => {
  const hop = [
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "proxy-",
    "proxy-authorization",
  ];
  const other = [
    "content-type",
    "content-length",
    "x-te",
    "tee",
    "hostname",
    "proxy",
    "proxie-x",
    "upgrades",
    "Trailers",
    "",
    "p",
    "accept",
    "user-agent",
    "x-hub-signature-256",
  ];
  const cases = (n: string) => [n, n.toUpperCase(), n.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase())];
  for (const name of hop) for (const n of cases(name)) assert.equal(isHopHeader(n), true, n);
  for (const name of other) for (const n of cases(name)) assert.equal(isHopHeader(n), false, n);
});
