/**
 * A group-commit batch's timeline, from the system calls of a running server
 * (`perf trace`, every thread): when the batch's `write` to the log starts
 * and ends, when its `fdatasync` starts and ends, and when the answers it
 * releases go out (`sendto` on the main thread), per batch, as medians. The
 * runtime runs each blocking file op on a tokio worker thread, which wakes
 * the event loop with an 8-byte eventfd `write` when the op is done: that
 * wake marks the op's end even when `perf trace` could not pair the call's
 * own lines.
 *
 * Tracing every call slows the server (each traced call costs several µs),
 * so the gaps are longer than untraced; compare the servers with each
 * other, measured the same way, not with the untraced rates.
 * @module
 */

/** Medians over the batches of one trace. */
export interface BatchTimeline {
  label: string;
  batches: number;
  /** Requests answered per batch, the mean (answers between one sync's end and the next). */
  perBatch: number;
  /** µs the log write took. */
  writeUs: number;
  /** µs from the write's end to the fdatasync's start. */
  writeToSyncUs: number;
  /** µs the fdatasync took. */
  syncUs: number;
  /** µs from the fdatasync's end to the first answer sent. */
  syncToFirstAnswerUs: number;
  /** µs from the first answer to the last of the batch. */
  answersSpanUs: number;
}

interface Call {
  t: number; // ms
  tid: string;
  comm: string;
  name: string;
  fd: number;
  count: number;
}

/** Parses `perf trace` lines: `TIME ( DUR ms): COMM/TID name(fd: N, …) = RET`. */
export function parseTrace(text: string): Call[] {
  const calls: Call[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*([\d.]+) \(\s*[\d.]*\s*(?:ms)?\): (.+?)\/(\d+) (\w+)\(fd: (\d+)(?:, [^)]*?count: (\d+))?/
      .exec(line);
    if (m === null) continue;
    calls.push({
      t: Number(m[1]),
      comm: m[2]!.trim(),
      tid: m[3]!,
      name: m[4]!,
      fd: Number(m[5]),
      count: Number(m[6] ?? 0),
    });
  }
  return calls;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** The batches of one trace. */
export function timeline(label: string, calls: Call[]): BatchTimeline {
  const syncs = calls.filter((c) => c.name === "fdatasync" || c.name === "fsync");
  const logFd = syncs[0]?.fd;
  const wakeFd = calls.find((c) => c.name === "write" && c.count === 8 && c.comm.startsWith("tokio"))?.fd;
  // The end of the op a tokio thread started last: its next eventfd wake.
  const endOf = (i: number): number | undefined => {
    for (let j = i + 1; j < calls.length; j++) {
      const c = calls[j]!;
      if (c.tid !== calls[i]!.tid) continue;
      if (c.name === "write" && c.fd === wakeFd) return c.t;
      return undefined; // the thread's wake was lost from the trace: this op's end is unknown
    }
    return undefined;
  };
  // Every sync of the log in order, with its end when known, and the write before it when known.
  const syncsSeen: {
    sStart: number;
    sEnd: number | undefined;
    wStart: number | undefined;
    wEnd: number | undefined;
  }[] = [];
  let write: { start: number; end: number | undefined } | undefined;
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    if (c.fd !== logFd) continue;
    if (c.name === "write" || c.name === "pwrite64") {
      write = { start: c.t, end: endOf(i) };
    } else if (c.name === "fdatasync" || c.name === "fsync") {
      syncsSeen.push({ sStart: c.t, sEnd: endOf(i), wStart: write?.start, wEnd: write?.end });
      write = undefined;
    }
  }
  const rows = syncsSeen.filter((r) => r.sEnd !== undefined && r.wEnd !== undefined) as {
    wStart: number;
    wEnd: number;
    sStart: number;
    sEnd: number;
  }[];
  const answers = calls.filter((c) => c.name === "sendto" && !c.comm.startsWith("tokio")).map((c) => c.t);
  const per: number[] = [], first: number[] = [], span: number[] = [];
  let k = 0;
  // A batch's answers go out between its sync's end and the next sync's end (both known).
  for (let r = 0; r + 1 < syncsSeen.length; r++) {
    const from = syncsSeen[r]!.sEnd, to = syncsSeen[r + 1]!.sEnd;
    if (from === undefined || to === undefined) continue;
    while (k < answers.length && answers[k]! < from) k++;
    const mine: number[] = [];
    for (let j = k; j < answers.length && answers[j]! < to; j++) mine.push(answers[j]!);
    if (mine.length === 0) continue;
    per.push(mine.length);
    first.push((mine[0]! - from) * 1000);
    span.push((mine.at(-1)! - mine[0]!) * 1000);
  }
  return {
    label,
    batches: rows.length,
    perBatch: per.length === 0 ? NaN : per.reduce((a, b) => a + b, 0) / per.length,
    writeUs: median(rows.map((r) => (r.wEnd - r.wStart) * 1000)),
    writeToSyncUs: median(rows.map((r) => (r.sStart - r.wEnd) * 1000)),
    syncUs: median(rows.map((r) => (r.sEnd - r.sStart) * 1000)),
    syncToFirstAnswerUs: median(first),
    answersSpanUs: median(span),
  };
}

/** Traces `pid` for `ms` milliseconds (the caller keeps it loaded meanwhile). */
export async function traceBatches(label: string, pid: number, ms: number): Promise<BatchTimeline> {
  const child = new Deno.Command("perf", {
    args: ["trace", "-p", String(pid), "-e", "write,pwrite64,fdatasync,fsync,sendto", "-T"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGINT"), ms);
  const out = await child.output();
  clearTimeout(timer);
  return timeline(label, parseTrace(new TextDecoder().decode(out.stderr)));
}

/** The timelines side by side, as Markdown. */
export function batchesReport(rows: BatchTimeline[]): string {
  if (rows.length === 0) return "";
  const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "–");
  const line = (name: string, pick: (r: BatchTimeline) => string) =>
    `| ${name} | ${rows.map(pick).join(" | ")} |`;
  return [
    "### A batch's timeline (medians over the batches of a 1 s `perf trace` of every thread)\n",
    "The log's `write` and `fdatasync` run on the runtime's worker threads; the answers (`sendto`) on the main " +
    "thread. Tracing slows every call: compare the columns, not with the untraced rates.\n",
    `| per batch | ${rows.map((r) => r.label).join(" | ")} |`,
    `|---|${rows.map(() => "---:").join("|")}|`,
    line("batches traced", (r) => f(r.batches)),
    line("answers released per batch (mean)", (r) => f(r.perBatch, 1)),
    line("`write` of the batch, µs", (r) => f(r.writeUs)),
    line("write's end → `fdatasync` starts, µs", (r) => f(r.writeToSyncUs)),
    line("`fdatasync`, µs", (r) => f(r.syncUs)),
    line("fdatasync's end → first answer out, µs", (r) => f(r.syncToFirstAnswerUs)),
    line("first → last answer of the batch, µs", (r) => f(r.answersSpanUs)),
  ].join("\n") + "\n";
}
