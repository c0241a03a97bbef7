/**
 * The npm package's config types (npm/index.d.ts) accept what the source's do, field by field: not only the
 * same names (tests/npm_types_test.ts) but the same types, so `secret: process.env.GH_SECRET` (a
 * `string | undefined`) type-checks in a Node project under `exactOptionalPropertyTypes` (on in
 * `tsc --init`'s tsconfig) as it does in Deno. Checked by the type checker before the test runs.
 * @module
 */
import assert from "node:assert/strict";
import type * as Npm from "../npm/index.d.ts";
import type {
  Config,
  EndpointConfig,
  ForwardWhen,
  HmacConfig,
  RetentionConfig,
} from "../src/config/types.ts";
import type { ResponseConfig, ResponseFunction } from "../src/config/response.ts";
import type { McpConfig } from "../src/config/mcp.ts";
import type { UiConfig } from "../src/config/ui.ts";
import type { Verdict, VerdictStatus } from "../src/event/record.ts";
import type { HubConfig } from "../src/config/hub.ts";
import type { ServerConfig } from "../src/config/server.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The fields of `A` whose type differs in `B` (`never` when none does). */
type Drift<A, B> = {
  [K in keyof Required<A>]-?: Same<Required<A>[K], Required<B>[K & keyof Required<B>]> extends true ? never
    : K;
}[keyof Required<A>];
/** `true` when nothing drifts; else the drifting field names, which `true` is not assignable to. */
type None<D> = [D] extends [never] ? true : D;

// `response` is checked apart: a function of the npm package's (narrower) event must fit the source's.
const endpoint: None<Drift<Omit<EndpointConfig, "response">, Omit<Npm.EndpointConfig, "response">>> = true;
const config: None<Drift<Omit<Config, "endpoints">, Omit<Npm.Config, "endpoints">>> = true;
const when: None<Drift<ForwardWhen, Npm.ForwardWhen>> = true;
const hmac: None<Drift<HmacConfig, Npm.HmacConfig>> = true;
const response: None<Drift<ResponseConfig, Npm.ResponseConfig>> = true;
const mcp: None<Drift<McpConfig, Npm.McpConfig>> = true;
const hub: None<Drift<HubConfig, Npm.HubConfig>> = true;
const server: None<Drift<ServerConfig, Npm.ServerConfig>> = true;
const retention: None<Drift<RetentionConfig, NonNullable<Npm.Config["retention"]>>> = true;
// A name both packages export means the same type in both (`Verdict` was a status string in the npm one).
const names: None<
  | (Same<Npm.Verdict, Verdict> extends true ? never : "Verdict")
  | (Same<Npm.VerdictStatus, VerdictStatus> extends true ? never : "VerdictStatus")
  | (Same<Npm.UiConfig, UiConfig> extends true ? never : "UiConfig")
  | (Same<Npm.RetentionConfig, RetentionConfig> extends true ? never : "RetentionConfig")
> = true;
const responseFunction: Same<Npm.ResponseFunction extends ResponseFunction ? true : false, true> = true;

Deno.test("npm/index.d.ts gives every config field the source's type (an unset env secret included)", () => {
  assert.deepEqual(
    [endpoint, config, when, hmac, response, mcp, hub, server, retention],
    Array(9).fill(true),
  );
  assert.equal(responseFunction, true);
  assert.equal(names, true);
  const fromEnv: string | undefined = undefined;
  const written: Npm.Config = {
    port: 8787,
    endpoints: [{ name: "github", path: "/github", method: "POST", secret: fromEnv, publicKey: fromEnv }],
  };
  assert.equal(written.endpoints[0]?.secret, undefined);
});
