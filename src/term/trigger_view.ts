/**
 * How `hooktap trigger` shows its deliveries: one line for what was sent,
 * one for the answer (and the first lines of an error body), or one JSON
 * object per delivery; and the `--list` table. Pure.
 * @module
 */
import type { ListEntry } from "../trigger/list.ts";
import { type Delivery, devAnswer } from "../trigger/run.ts";
import type { Colors } from "./colors.ts";
import { formatBytes } from "../text/format.ts";
import { safeLine } from "../text/sanitize.ts";
import { suggestCommand } from "../text/command_line.ts";
import { providerFacts } from "../providers/catalog.ts";

const decoder = new TextDecoder();

/** How the delivery was signed, as the app will see it: a bad signature is not "signed with the secret". */
function signedText(d: Delivery): string {
  if (d.signed === "none") return "unsigned";
  if (d.fault === "bad-signature") return `a signature made wrong on purpose (not with the ${d.signed})`;
  const by = (d.signatureHeaders ?? []).map(({ name, value }) =>
    value === "" ? `${safeLine(name)} removed by -H` : `${safeLine(name)} set by -H`
  );
  return `signed with the ${d.signed}${by.length > 0 ? `, then ${by.join(", ")}` : ""}`;
}

/** Two lines (more for an error body) about one delivery. */
export function deliveryText(d: Delivery, c: Colors): string {
  const fault = d.fault === undefined
    ? ""
    : c.yellow(` [${d.fault}${d.attempt > 0 ? ` #${d.attempt}` : ""}]`);
  const head = `→ ${d.provider} ${safeLine(d.event)}${fault}  ${d.method} ${safeLine(d.url)}  ` +
    c.dim(
      `${formatBytes(d.body.length)}, ${signedText(d)}`,
    );
  if (d.status === undefined) return `${head}\n  ${c.red(`✗ no answer: ${safeLine(d.error ?? "")}`)}\n`;
  const good = d.status >= 200 && d.status < 300;
  // Delivered, but dev found the signature bad (a --secret that is not the endpoint's): not a plain ✓.
  const doubted = !d.expectRejection &&
    (d.devVerdict === "invalid" || d.devVerdict === "expired" || d.answerNote !== undefined);
  const mark = !d.ok ? c.red("✗") : doubted ? c.yellow("!") : c.green("✓");
  const verdictNote = d.devVerdict !== undefined && !d.expectRejection
    ? ` (dev's verdict: ${d.devVerdict}: ${
      suggestCommand(["inspect", devAnswer(d).id ?? "ID"])
    } gives the reason)`
    : d.devVerdict !== undefined
    ? (d.ok
      ? ` (dev's verdict: ${d.devVerdict}, as it should be)`
      : ` (dev's verdict: ${d.devVerdict}: dev could not judge the signature, so the fault proves nothing${
        d.devVerdict === "no-secret" ? "; give the endpoint its secret in the config" : ""
      })`)
    : d.expectRejection
    ? (good ? " (accepted, but it should have been refused)" : " (refused, as it should be)")
    : "";
  // What the answer lacks, beside dev's verdict too (an unsigned Zoom validation dev could not answer).
  const lacks = d.answerProblem ?? d.answerNote;
  const note = lacks === undefined || d.expectRejection
    ? verdictNote
    : verdictNote === ""
    ? ` (but ${safeLine(lacks)})`
    : `${verdictNote.slice(0, -1)}; and ${safeLine(lacks)})`;
  let text = `${head}\n  ${mark} ${
    good ? c.green(String(d.status)) : c.red(String(d.status))
  } in ${d.durationMs} ms${note}\n`;
  if ((d.status === 401 || d.status === 403) && !d.expectRejection && d.signedUrl !== undefined) {
    // Twilio signs the URL: an app that checks the URL it is reached at under another name (its public
    // one, behind a proxy or a tunnel) refuses a signature made for this one.
    text += c.yellow(
      `  ${providerFacts(d.provider)?.title ?? d.provider} signs the URL: this was signed for ${
        safeLine(d.signedUrl)
      }; if your app checks ` +
        "another (its public URL), sign for that one with --signature-url URL\n",
    );
  }
  if (!good && d.responseBody !== undefined && d.responseBody.length > 0) {
    const lines = decoder.decode(d.responseBody.subarray(0, 2000)).split("\n").slice(0, 5);
    text += lines.map((l) => c.dim(`    ${safeLine(l).slice(0, 200)}`)).join("\n") + "\n";
  }
  return text;
}

/** One delivery as a JSON object (its body as text). */
export function deliveryJson(d: Delivery, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    provider: d.provider,
    event: d.event,
    ...extra,
    ...(d.fault === undefined ? {} : { fault: d.fault }),
    attempt: d.attempt,
    method: d.method,
    url: d.url,
    headers: d.headers,
    body: decoder.decode(d.body),
    signed: d.signed,
    expectRejection: d.expectRejection,
    ok: d.ok,
    ...(d.devVerdict === undefined ? {} : { devVerdict: d.devVerdict }),
    ...(d.answerProblem === undefined ? {} : { answerProblem: d.answerProblem }),
    ...(d.answerNote === undefined ? {} : { answerNote: d.answerNote }),
    status: d.status ?? null,
    durationMs: d.durationMs,
    ...(d.responseBody === undefined ? {} : { answer: decoder.decode(d.responseBody.subarray(0, 4096)) }),
    ...(d.error === undefined ? {} : { error: d.error }),
  };
}

/** Where a provider's events come from: one source, or a generated source and how many are hand-written. */
function _sources(list: readonly ListEntry[]): string {
  const generated = list.filter((e) => e.generated);
  if (generated.length === 0 || generated.length === list.length) return list[0]!.source;
  return `${generated.length} ${generated[0]!.source}, ${list.length - generated.length} hand-written`;
}

/** The `--list` text: providers with their counts, or one provider's events and sequences, with their sources. */
export function listText(
  entries: readonly ListEntry[],
  titles: Readonly<Record<string, string>>,
  one: boolean,
  c: Colors,
): string {
  if (!one) {
    const by = new Map<string, ListEntry[]>();
    for (const e of entries) by.set(e.provider, [...(by.get(e.provider) ?? []), e]);
    const sources: string[] = [];
    const rows = [...by].map(([p, list]) => {
      const events = list.filter((e) => e.kind === "event");
      const seqs = list.filter((e) => e.kind === "sequence").map((e) => e.name);
      const sample = events.slice(0, 3).map((e) => e.name).join(", ");
      const generated = events.some((e) => e.generated);
      if (generated) sources.push(`  ${p}: ${events.find((e) => e.generated)!.source}`);
      return `  ${p.padEnd(18)} ${String(events.length).padStart(4)} ${
        events.length === 1 ? "event " : "events"
      }  ${(generated ? "generated" : "hand-written").padEnd(12)}  ${
        c.dim(`${titles[p] ?? p}: ${sample}${events.length > 3 ? ", …" : ""}`)
      }` +
        (seqs.length ? `\n  ${"".padEnd(18)}      ${c.dim(`sequences: ${seqs.join(", ")}`)}` : "");
    });
    return `${rows.join("\n")}\n\n${entries.filter((e) => e.kind === "event").length} events in all. ` +
      `\`${suggestCommand(["trigger", "--list"])} <provider>\` lists one provider's.\n` +
      (sources.length > 0
        ? `Generated catalogs (the rest are hand-written; sequences always are):\n${sources.join("\n")}\n`
        : "");
  }
  const list = entries.filter((e) => e.kind === "event");
  const first = list[0];
  const head = first === undefined
    ? ""
    : `${list.length} events, ${_sources(list)}.${
      list.some((e) => e.from === "example" || e.from === "example+schema" || e.from === "schema")
        ? " Each payload is an example (recorded), example+schema (recorded, completed from the schema) " +
          "or schema (built from it)."
        : ""
    }\n`;
  const width = Math.min(48, Math.max(0, ...list.map((e) => e.name.length)));
  const events = list.map((e) => {
    const notes = [e.from, e.alias === undefined ? undefined : `alias: ${e.alias}`].filter((x) =>
      x !== undefined
    );
    return notes.length === 0 ? `  ${e.name}` : `  ${e.name.padEnd(width)}  ${c.dim(notes.join(", "))}`;
  });
  const seqs = entries.filter((e) => e.kind === "sequence").map((e) =>
    `  ${e.name.padEnd(16)} ${c.dim(`${e.description}: ${e.steps?.join(" → ")}`)}`
  );
  return `${head}${events.join("\n")}\n${
    seqs.length ? `\nSequences (hand-written):\n${seqs.join("\n")}\n` : ""
  }`;
}
