/**
 * Event ids: `evt_<YYYYMMDD>_<ULID>`, the UTC date of arrival and a ULID
 * from a monotonic factory, so that ids sort in arrival order.
 * @module
 */

/** Pattern of a whole event id. */
export const EVENT_ID_PATTERN: RegExp = /^evt_\d{8}_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Makes a new id for an event received at `date`. */
export type IdFactory = (date: Date) => string;

/** `YYYYMMDD` of a date, in UTC. */
export function utcDay(date: Date): string {
  const day = date.getUTCFullYear() * 10000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
  return String(day).padStart(8, "0");
}

/** Crockford's base32, the ULID alphabet. */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Its character codes. */
const CODES = Uint8Array.from(CROCKFORD, (c) => c.charCodeAt(0));
const DAY_MS = 86_400_000;
/** Largest time a ULID holds (48 bits of milliseconds). */
const TIME_MAX = 2 ** 48 - 1;

/** The 10-character time part of a ULID. */
function ulidTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > TIME_MAX) {
    throw new RangeError(`Cannot make a ULID for time ${ms}`);
  }
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32]! + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * A factory of strictly increasing event ids (within this process): a
 * monotonic ULID factory (the `ulid` package's algorithm, without the
 * package, which start-up and each id paid for). A new millisecond gets 80
 * fresh random bits; within one millisecond, or if the clock steps back, the
 * previous random part is incremented and the previous time is kept.
 * `prefix` names the kind (`evt`, the deliveries log's `dlv`).
 */
export function createIdFactory(prefix = "evt"): IdFactory {
  let lastTime = 0;
  let timePart = "";
  const random = new Uint8Array(16); // 16 base32 digits, 0..31 each
  /** `<prefix>_<YYYYMMDD>_` of the last day an id was made for (the day of each id is read once a day). */
  let day = NaN;
  let head = "";
  return (date) => {
    const t = date.getTime();
    const seed = !t || Number.isNaN(t) ? Date.now() : t;
    if (seed > lastTime) {
      timePart = ulidTime(seed);
      lastTime = seed;
      crypto.getRandomValues(random);
      for (let i = 0; i < 16; i++) random[i] = random[i]! >> 3;
    } else {
      let i = 15;
      while (i >= 0 && random[i] === 31) random[i--] = 0;
      if (i < 0) throw new RangeError("ULID random part overflowed within one millisecond");
      random[i]!++;
    }
    // The random part made as one string (16 one-character appends were 16 strings per id).
    const r = random;
    const suffix = timePart + String.fromCharCode(
      CODES[r[0]!]!,
      CODES[r[1]!]!,
      CODES[r[2]!]!,
      CODES[r[3]!]!,
      CODES[r[4]!]!,
      CODES[r[5]!]!,
      CODES[r[6]!]!,
      CODES[r[7]!]!,
      CODES[r[8]!]!,
      CODES[r[9]!]!,
      CODES[r[10]!]!,
      CODES[r[11]!]!,
      CODES[r[12]!]!,
      CODES[r[13]!]!,
      CODES[r[14]!]!,
      CODES[r[15]!]!,
    );
    const today = Math.floor(t / DAY_MS);
    if (today !== day) {
      // A date that is not a time (NaN) is never kept: its day is read again each time, as it was.
      day = today;
      head = `${prefix}_${utcDay(date)}_`;
    }
    return head + suffix;
  };
}
