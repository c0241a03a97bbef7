/// <reference lib="dom" />
/**
 * The inspector page: the list (newest first, paged from the end of the
 * log, live rows over Server-Sent Events), the filters, the detail view and
 * the keyboard (`j`/`k`, `/`, `r`). Every value is set as text.
 * @module
 */
import {
  ApiError,
  type EventDetail,
  type EventSummary,
  getEvent,
  getInfo,
  getPage,
  type Info,
} from "./api.ts";
import { renderDetail } from "./detail.ts";
import { formatSize, formatTime, h } from "./dom.ts";
import { openReplay } from "./replay_dialog.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const rows = $<HTMLTableSectionElement>("rows");
const detailPane = $<HTMLElement>("detail");
const more = $<HTMLButtonElement>("more");
const status = $<HTMLElement>("status");
const filters = $<HTMLFormElement>("filters");

let info: Info = { endpoints: [], resign: false, live: false };
let cursor: number | null = null;
let loading = false;
let generation = 0;
let selected: string | undefined;
let current: EventDetail | undefined;
let stream: EventSource | undefined;
const shown = new Set<string>();

/** The filters as a query string (blank fields left out; times as ISO). */
function filterQuery(): string {
  const params = new URLSearchParams();
  for (const el of filters.querySelectorAll<HTMLInputElement | HTMLSelectElement>("[name]")) {
    const value = el.value.trim();
    if (value === "") continue;
    params.set(el.name, el.type === "datetime-local" ? new Date(value).toISOString() : value);
  }
  return params.toString();
}

function row(e: EventSummary): HTMLTableRowElement {
  const tr = h(
    "tr",
    { "data-id": e.id, "data-delivery": e.delivery, tabindex: "-1" },
    h("td", { class: "time", title: e.receivedAt }, formatTime(e.receivedAt)),
    h("td", {}, e.endpoint),
    h("td", {}, h("span", { class: `m m-${e.method.toLowerCase()}` }, e.method)),
    h("td", { class: "path" }, e.query ? `${e.path}?${e.query}` : e.path),
    h("td", {}, [e.provider, e.type].filter(Boolean).join(" ")),
    h("td", {}, e.verdict ? h("span", { class: `verdict v-${e.verdict}` }, e.verdict) : ""),
    h("td", { class: "delivery" }, deliveryMark(e.delivery)),
    h("td", { class: "size" }, formatSize(e.size)),
  );
  tr.addEventListener("click", () => select(e.id));
  if (e.id === selected) tr.classList.add("selected");
  return tr;
}

/** A row's delivery cell: the state, or nothing for an event not forwarded. */
function deliveryMark(state: string): HTMLElement | string {
  return state === "none" ? "" : h("span", { class: `d-${state}` }, state);
}

/** Shows `state` in the row of event `id` (when listed). */
function setRowState(id: string, state: string): void {
  const tr = rows.querySelector<HTMLTableRowElement>(`tr[data-id="${CSS.escape(id)}"]`);
  if (tr === null || tr.dataset.delivery === state) return;
  tr.dataset.delivery = state;
  tr.querySelector("td.delivery")?.replaceChildren(deliveryMark(state));
}

/** States a forward can still leave (a replay may change the others: the detail's refresh shows it). */
const UNSETTLED = new Set(["pending", "retrying"]);
/** Rows from the top whose states are read again (older ones are read when opened). */
const REFRESH_ROWS = 200;

/**
 * Reads again the states of the rows down to the oldest whose delivery is unsettled, among the first
 * {@linkcode REFRESH_ROWS} (one page request), so a row says `delivered` once the app took it, as
 * `hooktap logs` does; the open event is read again too.
 */
async function refreshStates(): Promise<void> {
  const list = [...rows.querySelectorAll<HTMLTableRowElement>("tr[data-id]")].slice(0, REFRESH_ROWS);
  const last = list.findLastIndex((tr) => UNSETTLED.has(tr.dataset.delivery ?? ""));
  if (last === -1 || document.hidden) return;
  const mine = generation;
  const query = filterQuery();
  // A few more than the rows: rows streamed in meanwhile. At most REFRESH_ROWS: each poll reads that many.
  const limit = Math.min(REFRESH_ROWS, last + 1 + 20);
  const page = await getPage(`${query}${query ? "&" : ""}limit=${limit}`).catch(() => undefined);
  if (page === undefined || mine !== generation) return;
  for (const e of page.events) {
    const tr = rows.querySelector<HTMLTableRowElement>(`tr[data-id="${CSS.escape(e.id)}"]`);
    if (tr === null || tr.dataset.delivery === e.delivery) continue;
    setRowState(e.id, e.delivery);
    if (e.id === selected && document.querySelector("#replay-dialog[open]") === null) void select(e.id);
  }
}

function setStatus(text: string): void {
  status.textContent = text;
}

/** What the status line says of the list: how many events it shows, and whether older ones are below. */
function countText(): string {
  return `${shown.size} event${shown.size === 1 ? "" : "s"}${cursor === null ? "" : " · more below"}`;
}

async function loadMore(): Promise<void> {
  if (loading || cursor === null) return;
  loading = true;
  const mine = generation;
  try {
    const query = filterQuery();
    const page = await getPage(`${query}${query ? "&" : ""}before=${cursor}&limit=100`);
    if (mine !== generation) return;
    for (const e of page.events) {
      if (shown.has(e.id)) continue;
      shown.add(e.id);
      rows.append(row(e));
    }
    cursor = page.next;
    more.hidden = cursor === null;
    setStatus(countText());
    if (rows.children.length === 0 && cursor === null) {
      rows.append(h("tr", { class: "empty" }, h("td", { colspan: "8" }, "No events match.")));
    }
  } catch (error) {
    setStatus(`Could not load events: ${error}`);
  } finally {
    loading = false;
  }
  // A filter that matches little may need more pages to fill the screen.
  if (mine === generation && cursor !== null && more.getBoundingClientRect().top < innerHeight) {
    void loadMore();
  }
}

/** Whether the status line says this page's session ended (until a stream opens again). */
let sessionEnded = false;

/** The list's first page, read: the stream's catch-up waits for it. */
let firstPage: Promise<void> = Promise.resolve();

function connect(): void {
  stream?.close();
  const query = filterQuery();
  const mine = new EventSource(`/api/stream${query ? `?${query}` : ""}`);
  stream = mine;
  document.body.dataset.live = "connecting";
  mine.addEventListener("open", () => {
    document.body.dataset.live = "on";
    if (sessionEnded) setStatus(countText()); // the status said the session ended: it is live again
    sessionEnded = false;
    // Events stored before the stream listened are listed too: after the first page was read and before
    // this stream was subscribed, or while it was down (hooktap restarting, a network blip).
    void firstPage.then(() => (stream === mine ? catchUp() : undefined));
  });
  mine.addEventListener("error", () => {
    document.body.dataset.live = "off";
    // A stream the server refused is not tried again by the browser: say why, or try again.
    if (mine.readyState === EventSource.CLOSED && stream === mine) void streamRefused();
  });
  mine.addEventListener("event", (message) => {
    const e = JSON.parse((message as MessageEvent<string>).data) as EventSummary;
    if (shown.has(e.id)) return;
    shown.add(e.id);
    rows.querySelector("tr.empty")?.remove();
    const tr = row(e);
    tr.classList.add("new");
    rows.prepend(tr);
    setStatus(`${shown.size} event${shown.size === 1 ? "" : "s"}`);
  });
}

/**
 * The stream was refused: a session that ended (hooktap restarted: a new token) is told, and asked again
 * until this browser has the new one; else it connects again.
 */
async function streamRefused(): Promise<void> {
  const mine = stream;
  let ended = false;
  try {
    await getInfo();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      ended = sessionEnded = true;
      document.body.dataset.live = "ended";
      setStatus(
        "This page's session ended (hooktap restarted or stopped; each start has a new token): " +
          "open the link hooktap printed last, or run hooktap ui --open.",
      );
    }
  }
  // An ended session is asked again (the new link opened in another tab gives this browser the new one).
  setTimeout(() => {
    if (stream === mine) void (ended ? streamRefused() : connect());
  }, ended ? 3000 : 2000);
}

/** Lists the newest events the page has not shown, each in its place (newest first). */
async function catchUp(): Promise<void> {
  const mine = generation;
  const query = filterQuery();
  const page = await getPage(`${query}${query ? "&" : ""}limit=100`).catch(() => undefined);
  if (page === undefined || mine !== generation) return;
  for (const e of page.events) {
    if (shown.has(e.id)) continue;
    const after = [...rows.querySelectorAll<HTMLTableRowElement>("tr[data-id]")].find((tr) =>
      tr.dataset.id! < e.id
    );
    if (after === undefined && cursor !== null) continue; // older than the rows loaded: a later page has it
    shown.add(e.id);
    rows.querySelector("tr.empty")?.remove();
    const tr = row(e);
    tr.classList.add("new");
    if (after === undefined) rows.append(tr);
    else rows.insertBefore(tr, after);
  }
  setStatus(`${shown.size} event${shown.size === 1 ? "" : "s"}${cursor === null ? "" : " · more below"}`);
}

function reload(): void {
  generation++;
  rows.replaceChildren();
  shown.clear();
  cursor = Number.MAX_SAFE_INTEGER;
  loading = false;
  connect();
  firstPage = loadMore();
}

async function select(id: string): Promise<void> {
  selected = id;
  for (const tr of rows.querySelectorAll("tr.selected")) tr.classList.remove("selected");
  const tr = rows.querySelector<HTMLTableRowElement>(`tr[data-id="${CSS.escape(id)}"]`);
  tr?.classList.add("selected");
  tr?.scrollIntoView({ block: "nearest" });
  history.replaceState(null, "", `#${id}`);
  try {
    const detail = await getEvent(id);
    if (selected !== id) return;
    current = detail;
    detailPane.replaceChildren(renderDetail(detail, { replay, copy }));
    setRowState(id, detail.delivery); // one model: the row says what the detail says
  } catch (error) {
    detailPane.replaceChildren(h("p", { class: "error" }, String(error)));
  }
}

function replay(): void {
  if (current === undefined) return;
  const id = current.event.id;
  // The detail shows the new attempt, as `hooktap logs` and `inspect` do.
  openReplay(current.event, info.resign, () => {
    if (selected === id) void select(id);
  });
}

async function copy(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    setStatus(`Copied the ${what}.`);
  } catch {
    // No clipboard permission: show it, selected, to copy by hand (one box: the last thing asked for).
    document.getElementById("copy-fallback")?.remove();
    const area = h("textarea", { class: "copy", rows: "6", readonly: true, id: "copy-fallback" });
    area.value = text;
    detailPane.prepend(area);
    area.select();
    setStatus(`Select and copy the ${what} (the browser refused the clipboard).`);
  }
}

function move(step: number): void {
  const list = [...rows.querySelectorAll<HTMLTableRowElement>("tr[data-id]")];
  if (list.length === 0) return;
  const at = list.findIndex((tr) => tr.dataset.id === selected);
  const next = list[Math.max(0, Math.min(list.length - 1, at === -1 ? 0 : at + step))]!;
  void select(next.dataset.id!);
  if (step > 0 && list.indexOf(next) >= list.length - 5) void loadMore();
}

document.addEventListener("keydown", (e) => {
  const t = e.target as HTMLElement;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (t.closest("input, textarea, select, dialog")) {
    // Esc leaves a field (in the replay dialog it closes the dialog, as dialogs do).
    if (e.key === "Escape" && !t.closest("dialog")) t.blur();
    return;
  }
  if (e.key === "j") move(1);
  else if (e.key === "k") move(-1);
  else if (e.key === "/") {
    e.preventDefault();
    $<HTMLInputElement>("q").focus();
  } else if (e.key === "r") {
    e.preventDefault();
    replay();
  } else return;
});

let debounce: ReturnType<typeof setTimeout> | undefined;
filters.addEventListener("input", () => {
  clearTimeout(debounce);
  debounce = setTimeout(reload, 200);
});
filters.addEventListener("submit", (e) => {
  e.preventDefault();
  clearTimeout(debounce);
  reload();
});
more.addEventListener("click", () => void loadMore());
setInterval(() => void refreshStates(), 2000);
new IntersectionObserver((entries) => {
  if (entries.some((x) => x.isIntersecting)) void loadMore();
}).observe(more);

info = await getInfo().catch(() => info);
const endpoints = $<HTMLDataListElement>("endpoint-names");
for (const name of info.endpoints) endpoints.append(h("option", { value: name }));
reload();
const fromHash = decodeURIComponent(location.hash.slice(1));
if (/^evt_\d{8}_[0-9A-Z]{26}$/.test(fromHash)) void select(fromHash);
