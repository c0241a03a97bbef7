/**
 * The npm package's hand-written config types (npm/index.d.ts) stay in step with the source's: the same
 * fields, and the starter config satisfies both. Checked by the type checker (`deno task check`, and
 * `deno test` before it runs).
 * @module
 */
import assert from "node:assert/strict";
import type * as Npm from "../npm/index.d.ts";
import type { Config, EndpointConfig, ForwardConfig } from "../src/config/types.ts";
import type { ResponseConfig } from "../src/config/response.ts";
import type { HubConfig } from "../src/config/hub.ts";
import type { ServerConfig } from "../src/config/server.ts";
import { STARTER_CONFIG } from "../src/config/starter.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameConfigKeys: Same<keyof Config, keyof Npm.Config> = true;
const sameEndpointKeys: Same<keyof EndpointConfig, keyof Npm.EndpointConfig> = true;
const sameForward: Same<ForwardConfig, Npm.ForwardConfig> = true;
const sameResponseKeys: Same<keyof ResponseConfig, keyof Npm.ResponseConfig> = true;
const sameUi: Same<Config["ui"], Npm.Config["ui"]> = true;
const sameHub: Same<HubConfig, Npm.HubConfig> = true;
const sameServer: Same<ServerConfig, Npm.ServerConfig> = true;

Deno.test("npm/index.d.ts declares the same config fields as src/config/types.ts", () => {
  assert.deepEqual([
    sameConfigKeys,
    sameEndpointKeys,
    sameForward,
    sameResponseKeys,
    sameUi,
    sameHub,
    sameServer,
  ], [
    true,
    true,
    true,
    true,
    true,
    true,
    true,
  ]);
  const starter: Npm.Config = STARTER_CONFIG as Npm.Config;
  assert.equal(starter.endpoints.length, 1);
});
