/**
 * Which HTTP stack `hooktap dev` listens with. Deno.serve serves every
 * config: it is the fastest (about two thirds of node:http's CPU per request,
 * BENCHMARKS.md "The node:http stack"), parses any method, and reads GET and
 * HEAD bodies through src/server/deno_body.ts. node:http stays for those who
 * ask (`HOOKTAP_STACK=node`): it gives the raw header list (the sender's
 * case, repeats, Cookie lines unmerged) and the header, keep-alive and
 * connection-count limits that Deno.serve does not take.
 * @module
 */
import type { Endpoint } from "../config/types.ts";

/** A listening stack. */
export type StackName = "deno" | "node";

/** The stack to use, and why, for the banner. */
export interface StackChoice {
  stack: StackName;
  reason: string;
}

/**
 * Picks the stack: `override` (from `HOOKTAP_STACK`) when it names one,
 * Deno.serve otherwise, whatever methods `endpoints` accept.
 */
export function chooseStack(endpoints: readonly Endpoint[], override?: string): StackChoice {
  if (override === "deno" || override === "node") {
    return { stack: override, reason: `HOOKTAP_STACK=${override}` };
  }
  const reading = endpoints.find((e) => e.methods.some((m) => m === "GET" || m === "HEAD"));
  return {
    stack: "deno",
    reason: reading === undefined ? "the default" : "the default; it reads GET and HEAD bodies too",
  };
}
