/**
 * Entry module for the new Deno Deploy (`deno deploy`): the hub on the
 * app's own KV (`Deno.openKv()` without a path). The admin token comes from
 * the app's `HOOKTAP_HUB_ADMIN_TOKEN` variable, the public URL from
 * `HOOKTAP_HUB_PUBLIC_URL` (else each request's origin), the limits from
 * `HOOKTAP_HUB_LIMITS`, a JSON object of `HubLimits` fields
 * (`{"retentionMs": 86400000, "ratePerMinute": 600}`; the others keep their
 * defaults).
 *
 * Not run on the platform from this repository: the code paths are the ones
 * `hooktap hub serve` runs and the tests exercise with a local KV file.
 * @module
 */
import { openHubStore } from "./kv_store.ts";
import { limitsFromEnv } from "./limits.ts";
import { publicBase } from "./public_url.ts";
import { createHubHandler } from "./server.ts";

function publicUrlFromEnv(raw: string | undefined): string | undefined {
  return raw ? publicBase(raw, "HOOKTAP_HUB_PUBLIC_URL") : undefined;
}

const store = await openHubStore(undefined);
const handler = createHubHandler({
  store,
  adminToken: Deno.env.get("HOOKTAP_HUB_ADMIN_TOKEN") || undefined,
  // A bad one stops the app at start with what is wrong (channel URLs would be wrong otherwise).
  publicUrl: publicUrlFromEnv(Deno.env.get("HOOKTAP_HUB_PUBLIC_URL")),
  limits: limitsFromEnv(Deno.env.get("HOOKTAP_HUB_LIMITS")),
});

export default {
  fetch(request: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
    return handler(request, info);
  },
} satisfies Deno.ServeDefaultExport;
