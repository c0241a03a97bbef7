import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { providerFilter, readProvider } from "./provider_name.ts";

/** What readProvider says of a name no provider has. */
function unknown(name: unknown, listGeneric?: boolean): { near: string | undefined; names: string[] } {
  const read = readProvider(name, listGeneric);
  if (read.provider !== undefined) throw new Error(`${String(name)} read as ${read.provider}`);
  return read;
}

Deno.test("readProvider: any case and the aliases are a provider's canonical name", () => {
  assert.deepEqual(readProvider("GitHub"), { provider: "github" });
  assert.deepEqual(readProvider("SVIX"), { provider: "standard-webhooks" });
  assert.deepEqual(readProvider("generic", false), { provider: "generic" }); // accepted, though not listed
});

Deno.test("readProvider: an unknown name gets the nearest name or alias and the names to list", () => {
  const typo = unknown("githib");
  assert.equal(typo.near, "github");
  assert.ok(typo.names.includes("generic"), "a filter lists generic: its events carry it");
  assert.ok(!unknown("githib", false).names.includes("generic"), "the config lists it not");
  assert.equal(unknown("svx").near, "svix", "an alias is suggested too");
  assert.equal(unknown(42, false).near, undefined);
});

Deno.test("providerFilter: the option's own name in the message; an alias's typo is told the alias", () => {
  assert.equal(providerFilter("svix", "--provider"), "standard-webhooks");
  assert.throws(
    () => providerFilter("strpe", "--provider"),
    (e: unknown) =>
      e instanceof UsageError &&
      /^--provider must name a provider, got "strpe": did you mean stripe\? Known: github, /.test(e.message),
  );
  assert.throws(
    () => providerFilter("svx", "provider"),
    (e: unknown) =>
      e instanceof UsageError && /^provider must name a provider, got "svx": did you mean svix\? /
        .test(e.message),
  );
  assert.throws(
    () => providerFilter("", "--provider"),
    (e: unknown) =>
      e instanceof UsageError && /^--provider must name a provider, got ""\. Known: /.test(e.message),
  );
});
