/// <reference lib="dom" />
/**
 * One event in full: request line, headers in order, the body view, the
 * verdict, what hooktap answered, delivery attempts; and its actions.
 * @module
 */
import type { CapturedEvent, DeliveryRecord, EventDetail, TargetOutcome } from "./api.ts";
import { answerNote, senderGot, sentPhrase } from "../../send/answer_note.ts";
import { bodyBytes, formView, hexView, jsonTree, textView, viewsFor } from "./body_view.ts";
import { parseJsonSource } from "./json_source.ts";
import { formatSize, formatTime, h } from "./dom.ts";
import { attemptsPhrase } from "../../text/attempts.ts";
import { headerText } from "../../text/header_text.ts";
import { curlCommand } from "../../export/curl.ts";

/** Header value of a stored event (first, any case). */
export function header(event: CapturedEvent, name: string): string | undefined {
  return event.headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

/**
 * The event as a curl command that sends it again to where it arrived: `export --format curl`'s own
 * (src/export/curl.ts), so a body starting with `@` is sent as text (never a local file read), binary bytes
 * are piped in from `printf`, the URL is not globbed, and curl adds no header the sender did not send.
 */
export function curlOf(event: CapturedEvent): string {
  return curlCommand(event);
}

function section(title: string, ...children: (Node | string | null)[]): HTMLElement {
  return h("section", { class: "block" }, h("h3", {}, title), ...children);
}

function kvTable(rows: [string, string][], cls = "kv"): HTMLElement {
  const table = h("table", { class: cls });
  for (const [k, v] of rows) table.append(h("tr", {}, h("th", {}, k), h("td", {}, v)));
  return table;
}

/**
 * The app's answer under its attempt, as `hooktap inspect` shows it: its headers (repeats kept), its body as
 * text (a binary one said so, never shown as base64 text), and what the record keeps of it when that is not
 * the bytes as sent (decoded from gzip, cut at 64 KiB). Always text nodes: an answer is never markup.
 */
function answerView(a: DeliveryRecord): HTMLElement | null {
  if (a.status === undefined) return null;
  const note = answerNote(a);
  const empty = a.body === undefined || a.body === "";
  const body = empty ? h("p", { class: "dim" }, "(empty body)") : a.bodyEncoding === "base64"
    ? h(
      "p",
      { class: "dim" },
      `(binary${a.decodedFrom === undefined ? `, ${formatSize(a.bodySize ?? 0)}` : ""})`,
    )
    : textView(a.body!);
  return h(
    "div",
    { class: "app-answer" },
    a.headers !== undefined && a.headers.length > 0
      ? h(
        "details",
        { class: "answer-headers" },
        h("summary", {}, `headers (${a.headers.length})`),
        kvTable(a.headers.map(([k, v]): [string, string] => [k, headerText(v)])),
      )
      : null,
    body,
    note !== undefined ? h("p", { class: "dim answer-note" }, note) : null,
  );
}

function bodySection(event: CapturedEvent): HTMLElement {
  const views = viewsFor(event.body, event.bodyEncoding, header(event, "content-type"));
  const holder = h("div", { class: "body-view" });
  const tabs = h("div", { class: "tabs", role: "tablist" });
  const show = (view: string) => {
    for (const b of tabs.querySelectorAll("button")) {
      b.setAttribute("aria-selected", String(b.dataset.view === view));
    }
    const render = () =>
      view === "json"
        ? jsonTree(parseJsonSource(event.body))
        : view === "form"
        ? formView(event.body)
        : view === "text"
        ? textView(event.body)
        : hexView(bodyBytes(event.body, event.bodyEncoding));
    try {
      holder.replaceChildren(render());
    } catch (error) {
      // A view that cannot show this body never hides the rest of the event: its text is shown.
      holder.replaceChildren(
        h("p", { class: "error" }, `The ${view} view cannot show this body (${error}); its text:`),
        textView(event.body),
      );
    }
  };
  for (const view of views) {
    const button = h(
      "button",
      { type: "button", role: "tab", "data-view": view },
      view === "json" ? "JSON" : view,
    );
    button.addEventListener("click", () => show(view));
    tabs.append(button);
  }
  const download = h("a", {
    class: "button",
    href: `/api/events/${encodeURIComponent(event.id)}/raw`,
    download: `${event.id}.body`,
    id: "download",
  }, "Download body");
  if (event.bodySize === 0) holder.append(h("p", { class: "dim" }, "(empty body)"));
  else show(views[0]!);
  return section(
    `Body · ${formatSize(event.bodySize)}${event.bodyEncoding === "base64" ? " · binary" : ""}`,
    h("div", { class: "toolbar" }, event.bodySize > 0 ? tabs : null, download),
    holder,
  );
}

/** One target's outcome, in `hooktap inspect`'s words (src/term/delivery_view.ts). */
function targetLine(t: TargetOutcome): HTMLElement {
  return h(
    "li",
    {},
    `${t.name}: `,
    h("span", { class: `d-${t.outcome}` }, t.outcome),
    t.attempts > 0
      ? ` (${t.status ?? "no answer"}${sentPhrase(t.sent)}, ${attemptsPhrase(t, "attempts")})`
      : "",
    t.waiting
      ? h("span", { class: "dim" }, " (nothing listens: it waits for the app, no attempt spent)")
      : "",
  );
}

/** The detail view of an event. */
export function renderDetail(
  detail: EventDetail,
  actions: { replay(): void; copy(text: string, what: string): void },
): HTMLElement {
  const { event, attempts } = detail;
  const target = `${event.path}${event.query ? `?${event.query}` : ""}`;
  const root = h("article", { class: "detail", "data-id": event.id });
  const copyId = h("button", { type: "button", id: "copy-id" }, "Copy id");
  copyId.addEventListener("click", () => actions.copy(event.id, "id"));
  const copyCurl = h("button", { type: "button", id: "copy-curl" }, "Copy as curl");
  copyCurl.addEventListener("click", () => actions.copy(curlOf(event), "curl command"));
  const replay = h("button", { type: "button", id: "replay-open", title: "r" }, "Replay…");
  replay.addEventListener("click", actions.replay);
  root.append(
    h(
      "h2",
      { class: "request-line" },
      h("span", { class: `m m-${event.method.toLowerCase()}` }, event.method),
      " ",
      target,
    ),
    h(
      "p",
      { class: "meta" },
      h("code", { class: "id" }, event.id),
      ` · ${event.endpoint} · ${
        formatTime(event.receivedAt)
      } (${event.receivedAt}) · from ${event.remoteAddr}`,
      event.provider ? ` · ${event.provider}${event.type ? ` ${event.type}` : ""}` : null,
    ),
    h("div", { class: "toolbar" }, replay, copyCurl, copyId),
  );
  if (event.verdict) {
    const v = event.verdict;
    root.append(section(
      "Signature",
      h("p", {}, h("span", { class: `verdict v-${v.status}` }, v.status), v.scheme ? ` · ${v.scheme}` : ""),
      v.reason ? h("p", {}, v.reason) : null,
    ));
  }
  if (event.response) {
    const r = event.response;
    root.append(section(
      "hooktap answered",
      h("p", {}, `${r.status} (${r.source})${r.delayMs ? ` after ${r.delayMs} ms` : ""}`),
      r.headers ? kvTable(r.headers) : null,
      r.body ? textView(r.body) : null,
    ));
  }
  if (event.forward || attempts.length > 0) {
    const list = h("table", { class: "attempts" });
    list.append(
      h(
        "tr",
        {},
        ...["#", "source", "target", "started", "ms", "answer", "outcome"].map((t) => h("th", {}, t)),
      ),
    );
    for (const a of attempts) {
      // A try nothing listened to is no attempt (it costs none), as `hooktap inspect` says.
      const waits = a.refused === true && a.outcome === "retrying" && a.retryAt === undefined;
      list.append(h(
        "tr",
        a.refused === true ? { class: "refused" } : {},
        h("td", {}, a.refused === true ? "–" : String(a.attempt)),
        h("td", {}, a.source),
        h("td", {}, a.target),
        h("td", {}, formatTime(a.startedAt)),
        h("td", {}, String(a.durationMs)),
        h(
          "td",
          {},
          a.status !== undefined
            ? `${a.status} ${a.statusText ?? ""}`
            : `${a.error ?? ""}${a.refused === true ? " (no attempt spent)" : ""}`,
        ),
        h(
          "td",
          { class: `d-${a.outcome}` },
          waits ? "waits for the app" : a.outcome,
          a.source === "relay" ? h("span", { class: "dim" }, ` · ${senderGot(a)}`) : null,
        ),
      ));
      const answer = answerView(a);
      if (answer !== null) list.append(h("tr", { class: "answer" }, h("td", { colspan: "7" }, answer)));
    }
    root.append(section(
      `Delivery · ${detail.delivery}`,
      detail.targets !== undefined
        ? (detail.targets.length === 0
          ? h("p", { class: "dim", id: "targets" }, "not forwarded (no rule matched)")
          : h(
            "ul",
            { id: "targets" },
            ...detail.targets.map(targetLine),
          ))
        : event.forward
        ? h("p", {}, `forwarding (${event.forward.mode}) to ${event.forward.to}`)
        : null,
      detail.others !== undefined && detail.others.length > 0
        ? h(
          "div",
          { id: "others" },
          h(
            "p",
            {},
            "Sent elsewhere ",
            // As `hooktap inspect` says (src/term/delivery_view.ts): `replay --to URL`, or a replay of an
            // event no rule took, is a send to no forward target of this event.
            h("span", { class: "dim" }, "(not a forward target of this event: not its forward state)"),
          ),
          h("ul", {}, ...detail.others.map(targetLine)),
        )
        : null,
      attempts.length > 0 ? list : h("p", { class: "dim" }, "No attempt yet."),
    ));
  }
  // Header bytes come one per character: UTF-8 values are shown decoded, as `hooktap inspect` shows them.
  const headers = event.headers.map(([k, v]): [string, string] => [k, headerText(v)]);
  root.append(section(`Headers · ${event.headers.length}`, kvTable(headers, "kv headers")));
  root.append(bodySection(event));
  return root;
}
