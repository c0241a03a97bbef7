import assert from "node:assert/strict";
import { eventLine } from "../../event/record.ts";
import { openStoreReader } from "../../store/read/reader.ts";
import { storePaths } from "../../store/paths.ts";
import { makeEvents } from "../../../tests/_store_fixture.ts";
import { unknownEndpoint } from "./endpoint_name.ts";

Deno.test("unknownEndpoint() knows the config's names and the stored ones (the index), and says nothing when nothing can tell", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_endpoint_name_" });
  try {
    const paths = storePaths(`${dir}/.hooktap`);
    assert.equal(
      await unknownEndpoint("nosuch", [], null),
      undefined,
      "no config, no store: nothing to tell",
    );
    assert.equal(
      await unknownEndpoint("githb", ["github", "stripe"], null),
      'There is no endpoint named "githb": did you mean "github"? Known endpoints: github, stripe.',
    );
    assert.equal(await unknownEndpoint("stripe", ["github", "stripe"], null), undefined);
    await Deno.mkdir(paths.dir);
    const events = makeEvents(2, { endpoints: ["old"] });
    await Deno.writeTextFile(paths.events, events.map(eventLine).join(""));
    const size = (await Deno.stat(paths.events)).size;
    await Deno.writeTextFile(paths.index, JSON.stringify({ v: 1, size, latest: { old: events[1]!.id } }));
    const reader = (await openStoreReader(paths))!;
    try {
      // An endpoint removed from the config still has its events.
      assert.equal(await unknownEndpoint("old", ["github"], reader), undefined);
      assert.equal(
        await unknownEndpoint("nosuch", [], reader),
        'There is no endpoint named "nosuch". Known endpoints: old.',
      );
    } finally {
      reader[Symbol.dispose]();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
