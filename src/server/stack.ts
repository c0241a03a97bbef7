/**
 * Which HTTP stack `hooktap dev` listens with. Deno.serve is the fastest but
 * hides the bodies of GET and HEAD requests; node:http reads them (and gives
 * the raw header list) but only parses the methods in `http.METHODS`.
 * @module
 */
import { METHODS } from "node:http";
import type { Endpoint } from "../config/types.ts";

/** A listening stack. */
export type StackName = "deno" | "node";

/** The stack to use, and why, for the banner. */
export interface StackChoice {
  stack: StackName;
  reason: string;
}

const BODYLESS_IN_DENO = ["GET", "HEAD"];

/**
 * Picks the stack for `endpoints`: node:http when an endpoint accepts GET or
 * HEAD (so their bodies are stored), unless an endpoint uses a method
 * node:http cannot parse; Deno.serve otherwise. `override` (from
 * `HOOKTAP_STACK`) wins.
 */
export function chooseStack(endpoints: readonly Endpoint[], override?: string): StackChoice {
  if (override === "deno" || override === "node") {
    return { stack: override, reason: `HOOKTAP_STACK=${override}` };
  }
  const reading = endpoints.find((e) => e.methods.some((m) => BODYLESS_IN_DENO.includes(m)));
  if (reading === undefined) return { stack: "deno", reason: "no endpoint accepts GET or HEAD" };
  const method = reading.methods.find((m) => BODYLESS_IN_DENO.includes(m));
  const foreign = endpoints.flatMap((e) => e.methods).find((m) => !METHODS.includes(m));
  if (foreign !== undefined) {
    return {
      stack: "deno",
      reason: `node:http cannot parse ${foreign}; ${method} requests with a body get 501`,
    };
  }
  return { stack: "node", reason: `"${reading.name}" accepts ${method}, whose body Deno.serve cannot read` };
}
