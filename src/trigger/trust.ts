/**
 * `hooktap dev` trusts hooktap's trigger keys for its own verdicts: an
 * endpoint that declares Discord, SendGrid or Standard Webhooks and no
 * `publicKey` checks signatures with the trigger key's public half (the key
 * pair is made on first need, in `.hooktap/trigger-keys.json`, mode 0600).
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { KEYED_PROVIDERS as KEYED } from "../providers/signing.ts";
import { loadTriggerKeys, publicKeyFor } from "./keys.ts";

/** `endpoints`, those that need it given the trigger key's public key. */
export async function trustTriggerKeys(dataDir: string, endpoints: readonly Endpoint[]): Promise<Endpoint[]> {
  const needs = (e: Endpoint) =>
    e.signing?.provider !== undefined && KEYED.has(e.signing.provider) && e.signing.publicKey === undefined;
  if (!endpoints.some(needs)) return [...endpoints];
  const { keys } = await loadTriggerKeys(dataDir);
  return endpoints.map((e) =>
    needs(e) ? { ...e, signing: { ...e.signing!, publicKey: publicKeyFor(e.signing!.provider!, keys)! } } : e
  );
}
