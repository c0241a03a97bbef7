/**
 * One read model: the inspector's API and `hooktap logs --json` (the real
 * CLI, as a subprocess) over one store, with the same filters, return the
 * same events. The delivery state is the inspector's alone (`logs` has no
 * such filter), so it is not compared here (api_test.ts covers it).
 */
import assert from "node:assert/strict";
import { buildEvent, type CapturedEvent } from "../../src/event/record.ts";
import { createIdFactory } from "../../src/event/id.ts";
import { runCli } from "../_helpers.ts";
import { assertEquals } from "./_assert.ts";
import { fixtureEvents, inspectorFixture } from "./_fixture.ts";

/** The fixture's events, then GitHub "issues" events with typed actions and a capitalised header. */
function events(): CapturedEvent[] {
  const list = fixtureEvents();
  const newId = createIdFactory();
  const types = ["issues.opened", "issues", "issues_comment.created", "issues.closed"];
  for (const [i, type] of types.entries()) {
    const at = new Date(Date.now() - 45_000 + i * 1000); // far from the 90s boundary below
    const event = buildEvent({
      id: newId(at),
      endpoint: "github",
      receivedAt: at,
      method: "POST",
      path: "/hooks/GitHub",
      query: "",
      headers: [["X-GitHub-Event", type.split(".")[0]!], ["content-type", "application/json"]],
      body: new TextEncoder().encode(
        JSON.stringify({ action: type.split(".")[1] ?? "", Title: "Bug Report" }),
      ),
      remoteAddr: "127.0.0.1",
    });
    event.provider = "github";
    event.type = type;
    list.push(event);
  }
  return list;
}

/** Filters as `logs` flags, and the same as the inspector's query. */
const CASES: [string[], string][] = [
  [["--type", "issues"], "type=issues"],
  [["--type", "pull_request"], "type=pull_request"],
  [["--verdict", "unsigned"], "verdict=unsigned"],
  [["--verdict", "invalid", "--provider", "GitHub"], "verdict=invalid&provider=GitHub"],
  [["--grep", "hookshot"], "q=hookshot"],
  [["--grep", "Hookshot"], "q=Hookshot"],
  [["--grep", "HOOKSHOT"], "q=HOOKSHOT"],
  [["--grep", "bug report"], "q=bug+report"],
  [["--grep", "/hooks/github"], "q=%2Fhooks%2Fgithub"],
  [["--grep", "n=1"], "q=n%3D1"],
  // Boundaries between the events (a minute apart, the last four 45 s ago), whatever the clock.
  [["--since", "19m30s", "--until", "90s"], "since=19m30s&until=90s"],
  [["--where", "action=opened", "--endpoint", "github"], "where=action%3Dopened&endpoint=github"],
  [["--has-header", "x-github-event=issues"], "header=x-github-event%3Dissues"],
  [["--has-header", "User-Agent", "--filter-method", "put"], "header=User-Agent&method=put"],
];

Deno.test("the inspector's API and `hooktap logs --json` return the same events for the same filters", async () => {
  await using fx = await inspectorFixture({ events: events() });
  const viaApi = async (query: string) => {
    const r = await fx.fetch(`${fx.inspector.url}api/events?limit=1000&${query}`);
    const body = await r.json();
    assertEquals(r.status, 200, `${query}: ${JSON.stringify(body)}`);
    return (body.events as { id: string }[]).map((e) => e.id);
  };
  const viaLogs = async (flags: string[]) => {
    const r = await runCli(["logs", "--json", "--limit", "1000", ...flags], { cwd: fx.dir });
    assertEquals(r.code, 0, r.stderr);
    return r.stdout.trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).id as string)
      .reverse();
  };
  const found = new Map<string, string[]>();
  // Three CLI runs at a time: the machine is shared.
  for (let i = 0; i < CASES.length; i += 3) {
    await Promise.all(
      CASES.slice(i, i + 3).map(async ([flags, query]) => {
        const [api, logs] = await Promise.all([viaApi(query), viaLogs(flags)]);
        assertEquals(api, logs, `${query} (API) vs logs ${flags.join(" ")}`);
        found.set(query, api);
      }),
    );
  }
  for (const [query, ids] of found) {
    if (query !== "q=HOOKSHOT") assert.ok(ids.length > 0, `${query} found nothing: the case tests nothing`);
  }
  // The rules the page used to break: a type prefix, a missing verdict, smart case over the path.
  const idsOf = (keep: (e: CapturedEvent) => boolean) => fx.events.filter(keep).map((e) => e.id).reverse();
  assertEquals(
    found.get("type=issues"),
    idsOf((e) => e.type === "issues" || !!e.type?.startsWith("issues.")),
  );
  assertEquals(found.get("verdict=unsigned"), idsOf((e) => e.verdict === undefined));
  assertEquals(found.get("q=HOOKSHOT"), []);
  assertEquals(
    found.get("q=%2Fhooks%2Fgithub")!.length,
    idsOf((e) => /\/hooks\/github/i.test(e.path)).length,
  );
  assertEquals(found.get("q=bug+report")!.length, 4);
});
