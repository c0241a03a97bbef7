/// <reference lib="dom" />
/**
 * The replay dialog: target URL, method, headers and body (editable), the
 * re-sign switch when the server can re-sign, and the target's answer.
 * @module
 */
import { type CapturedEvent, postReplay } from "./api.ts";
import { h } from "./dom.ts";

const LAST_TARGET = "hooktap.replay.to";

/** `text` with its line breaks as a textarea holds them: CR LF and a lone CR become LF. */
export function asTextarea(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * The bytes to send for an edited body: a textarea gives its line breaks as LF, so a body stored with CR LF
 * line breaks throughout (and no other kind) gets them back; any other body is sent as edited.
 */
export function editedBody(edited: string, stored: string): string {
  const crlfOnly = stored.includes("\r\n") && !/\r(?!\n)|(?<!\r)\n/.test(stored);
  return crlfOnly ? edited.replace(/\r?\n/g, "\r\n") : edited;
}

/** Opens the replay dialog for `event`; `onSent` runs after each send the target answered. */
export function openReplay(
  event: CapturedEvent,
  canResign: boolean,
  onSent: () => void = () => {},
): HTMLDialogElement {
  document.getElementById("replay-dialog")?.remove();
  const to = h("input", {
    id: "replay-to",
    type: "url",
    required: true,
    placeholder: "http://localhost:3000/webhook",
    value: event.forward?.to ?? localStorage.getItem(LAST_TARGET) ?? "",
  });
  const method = h("input", { id: "replay-method", value: event.method, size: "8" });
  const storedHeaders = event.headers.map(([k, v]) => `${k}: ${v}`).join("\n");
  const headers = h("textarea", { id: "replay-headers", rows: "8", spellcheck: "false" });
  headers.value = storedHeaders;
  const binary = event.bodyEncoding === "base64";
  const body = h("textarea", { id: "replay-body", rows: "10", spellcheck: "false", disabled: binary });
  body.value = binary ? "(binary body: sent as stored)" : event.body;
  const resign = h("input", { id: "replay-resign", type: "checkbox", disabled: !canResign });
  // An event whose signature was invalid at receipt is re-signed only when asked in so many words.
  const invalid = event.verdict?.status === "invalid";
  const resignInvalid = h("input", { id: "replay-resign-invalid", type: "checkbox", disabled: !canResign });
  const result = h("div", { id: "replay-result", class: "result", "aria-live": "polite" });
  const send = h("button", { type: "submit", id: "replay-send" }, "Send");
  const cancel = h("button", { type: "button" }, "Close");
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", {}, `Replay ${event.id}`),
    h("label", {}, "To ", to),
    h("label", {}, "Method ", method),
    h("label", { class: "block" }, "Headers (one per line, Name: value)", headers),
    h("label", { class: "block" }, "Body", body),
    h(
      "label",
      { title: canResign ? "" : "Re-signing needs a provider re-signer; this hooktap has none." },
      resign,
      " Re-sign for the edited body",
    ),
    ...(invalid
      ? [h(
        "label",
        {
          title: "Its signature was invalid when hooktap received it: re-signing makes the app accept " +
            "what its sender did not sign right.",
        },
        resignInvalid,
        " even though its signature was invalid at receipt",
      )]
      : []),
    h("div", { class: "toolbar" }, send, cancel),
    result,
  );
  const dialog = h("dialog", { id: "replay-dialog" }, form);
  cancel.addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const request: Record<string, unknown> = { to: to.value.trim() };
    if (method.value.trim().toUpperCase() !== event.method) request.method = method.value.trim();
    if (headers.value !== storedHeaders) {
      request.headers = headers.value.split("\n").filter((l) => l.trim() !== "").map((line) => {
        const at = line.indexOf(":");
        return at === -1 ? [line.trim(), ""] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      });
    }
    // Unedited, the stored bytes go (the textarea's value has lost any CR of them).
    if (!binary && body.value !== asTextarea(event.body)) request.body = editedBody(body.value, event.body);
    if (resign.checked) request.resign = true;
    if (resign.checked && invalid && resignInvalid.checked) request.resignInvalid = true;
    localStorage.setItem(LAST_TARGET, to.value.trim());
    result.replaceChildren(h("p", { class: "dim" }, "Sending…"));
    send.disabled = true;
    try {
      const answer = await postReplay(event.id, request);
      if (typeof answer.error === "string") {
        result.replaceChildren(h("p", { class: "error" }, answer.error));
      } else {
        result.replaceChildren(
          h(
            "p",
            { class: answer.ok ? "ok" : "error" },
            `${answer.status} ${answer.statusText} · ${answer.durationMs} ms`,
          ),
          h("p", { class: "warn" }, typeof answer.warning === "string" ? answer.warning : ""),
          answer.binary === true
            ? h("p", { class: "dim" }, `(binary answer, ${Number(answer.bodySize ?? 0)} bytes: not shown)`)
            : h("pre", { class: "raw" }, String(answer.body ?? "")),
        );
        onSent();
      }
    } catch (error) {
      result.replaceChildren(h("p", { class: "error" }, String(error)));
    } finally {
      send.disabled = false;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  to.focus();
  return dialog;
}
