/**
 * Which clients are connected: polls held open per channel (the connection
 * cap counts them) and, per client name, its polls in progress and when it
 * was last seen. A sender is held for a client's answer only while some
 * client of its channel counts as connected; a client that said `bye` (a
 * clean stop) stops counting at once. An entry is made only for a client
 * just registered (its hello or poll) and goes with it (`hub clients rm`,
 * the channel deleted): requests cannot grow this.
 * @module
 */

/** A client seen this recently (or a poll held now) counts as connected, by default. */
export const CONNECTED_MS = 3000;

/** One client's contacts. */
interface Contact {
  /** Polls of this client in progress. */
  active: number;
  lastSeen: number;
  /** It said `bye`: its polls ending now do not count as a contact. */
  gone: boolean;
}

/** One client's poll in progress: `end()` once it answered (or its client went away). */
export interface PollVisit {
  end(): void;
}

/** The polls and contacts of every channel, in this process. */
export class Presence {
  /** Polls held open per channel (one token per channel: connections per token), with their client. */
  readonly #open = new Map<string, Map<AbortController, string>>();
  /** Per channel, per client name. */
  readonly #clients = new Map<string, Map<string, Contact>>();

  /**
   * @param windowMs how long after its last call a client still counts as connected (between two polls it
   * handles the events it got: a loaded machine can take seconds).
   */
  constructor(readonly windowMs: number = CONNECTED_MS) {}

  #contact(channel: string, client: string): Contact {
    let clients = this.#clients.get(channel);
    if (clients === undefined) this.#clients.set(channel, clients = new Map());
    let c = clients.get(client);
    if (c === undefined) clients.set(client, c = { active: 0, lastSeen: 0, gone: false });
    return c;
  }

  /** Marks `client` of `channel` as seen now (dev's hello, a poll). */
  seen(channel: string, client: string): void {
    const c = this.#contact(channel, client);
    c.lastSeen = Date.now();
    c.gone = false;
  }

  /** A poll of `client` begins: it counts as connected until `end()` and for the window after. */
  visit(channel: string, client: string): PollVisit {
    this.seen(channel, client);
    const c = this.#contact(channel, client);
    c.active++;
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        c.active--;
        if (!c.gone) c.lastSeen = Date.now();
      },
    };
  }

  /**
   * Whether `client` (else any client of `channel`) polls now or did a moment ago, and has not said `bye`
   * since.
   */
  connected(channel: string, client?: string): boolean {
    const clients = this.#clients.get(channel);
    if (clients === undefined) return false;
    const now = Date.now();
    const on = (c: Contact) => !c.gone && (c.active > 0 || now - c.lastSeen < this.windowMs);
    if (client !== undefined) {
      const c = clients.get(client);
      return c !== undefined && on(c);
    }
    for (const c of clients.values()) if (on(c)) return true;
    return false;
  }

  /**
   * `client` of `channel` stopped cleanly: it no longer counts as connected, and its held polls end (their
   * answer goes to no one).
   */
  bye(channel: string, client: string): void {
    const c = this.#clients.get(channel)?.get(client); // creates no entry: only a registered client has one
    if (c !== undefined) {
      c.gone = true;
      c.lastSeen = 0;
    }
    for (const [control, who] of this.#open.get(channel) ?? []) if (who === client) control.abort();
  }

  /** Forgets `client` of `channel` (it was removed; a poll of it held now still ends as it would). */
  forget(channel: string, client: string): void {
    const clients = this.#clients.get(channel);
    clients?.delete(client);
    if (clients?.size === 0) this.#clients.delete(channel);
  }

  /** Clients of `channel` with an entry here (at most its registered clients). */
  contacts(channel: string): number {
    return this.#clients.get(channel)?.size ?? 0;
  }

  /** Polls held open on `channel` now. */
  held(channel: string): number {
    return this.#open.get(channel)?.size ?? 0;
  }

  /** Counts a poll of `client` held open on `channel` (`control` ends it). */
  hold(channel: string, control: AbortController, client: string): void {
    let open = this.#open.get(channel);
    if (open === undefined) this.#open.set(channel, open = new Map());
    open.set(control, client);
  }

  /** A held poll ended. */
  release(channel: string, control: AbortController): void {
    this.#open.get(channel)?.delete(control);
  }

  /** Ends every poll held on `channel` (its token changed or it was deleted) and forgets its contacts. */
  cut(channel: string): void {
    for (const c of this.#open.get(channel)?.keys() ?? []) c.abort();
    this.#clients.delete(channel); // no longer "connected": senders are not held for an answer
  }
}
