/**
 * Dropbox: the file-change notification (`list_folder.accounts`), signed
 * `X-Dropbox-Signature` with the app secret.
 * @module
 */
import { randomText } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

function build(_event: string, ctx: BuildContext): Draft {
  const account = ctx.id("dropbox.account", () => `dbid:${randomText(34)}`);
  return {
    headers: [["Content-Type", "application/json"], ["User-Agent", "DropboxWebhooks/1.0"], [
      "X-Dropbox-Signature",
      "",
    ]],
    body: { kind: "json", value: { list_folder: { accounts: [account] }, delta: { users: [12345678] } } },
  };
}

/** Dropbox's catalog. */
export const catalog: TriggerCatalog = {
  provider: "dropbox",
  source: "hand-written",
  events: ["list_folder"],
  sequences: {},
  retries: [60, 300, 1800, 3600],
  retriesNote: "Dropbox retries failed notifications with backoff (no schedule documented)",
  build,
};
