/**
 * The live ledger hub behind `GET /api/ledger/stream`. One hub per process reads new feed events
 * once per commit notification (never per stream), renders each as an SSE frame once, and hands
 * the frame to every open stream. Streams resume in commit order (`feed_commits.seq`), while the
 * SSE id stays the event's microsecond cursor, the same string `/api/ledger` takes as `before`.
 */
import type { Db } from "../../db/client";
import { query, statement } from "../../db/statement";
import { feedNotifier } from "./feed-notifier";
import { isoMicros, parseBefore, renderFeedRows, type FeedType } from "./feed-queries";

export interface StreamOptions {
  /** comment line sent on every open stream this often, so proxies keep the connection */
  heartbeatMs: number;
  maxStreamsPerIp: number;
  maxStreams: number;
  /** a stream this many frames behind is closed; the client resumes with Last-Event-ID */
  maxQueuedFrames: number;
  /** safety net for writers in another process (operator scripts); in-process commits notify */
  fallbackPollMs: number;
  /**
   * commits notified within this window go out together: one write per stream for a burst
   * instead of one per event, which is what keeps a thousand streams cheap
   */
  coalesceMs: number;
  /**
   * how far back Last-Event-ID may reach, in events: an older id is refused (the client reads the
   * gap from /api/ledger), so no open replays, or looks through, more than this many commits
   */
  replayWindowEvents: number;
}

const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  heartbeatMs: 15_000,
  maxStreamsPerIp: 5,
  maxStreams: 10_000,
  maxQueuedFrames: 10_000,
  fallbackPollMs: 5_000,
  coalesceMs: 20,
  replayWindowEvents: 50_000,
};

const PAGE = 500;

interface CommitRow {
  seq: bigint;
  atUs: bigint;
  type: FeedType;
  refId: bigint;
  hidden: bigint;
}

const commits = statement<CommitRow, [{ after: number; until: number; minAtUs: number; limit: number }]>(
  `SELECT c.seq, f.at_us AS atUs, f.type, f.ref_id AS refId,
      (f.type = 'launch' AND EXISTS (SELECT 1 FROM tokens t WHERE t.id = f.ref_id AND t.hidden = 1)) AS hidden
    FROM feed_commits c JOIN feed_events f ON f.at_us = c.at_us
    WHERE c.seq > $after AND c.seq <= $until AND c.at_us > $minAtUs
    ORDER BY c.seq LIMIT $limit`,
);

export type OpenResult =
  | { ok: true; stream: ReadableStream<Uint8Array> }
  | { ok: false; status: 400 | 429 | 503; message: string };

interface Replay {
  afterSeq: number;
  untilSeq: number;
  minAtUs: number;
}

const encoder = new TextEncoder();

/** Every hub of the process, so shutdown can end open streams before it waits for requests. */
const hubs = new Set<LedgerStreamHub>();

export function closeAllStreams(): void {
  for (const hub of [...hubs]) hub.close();
}

export class LedgerStreamHub {
  readonly options: StreamOptions;
  private readonly clients = new Set<StreamClient>();
  private readonly perIp = new Map<string, number>();
  private lastSeq = 0;
  private tracking = false;
  private timers: ReturnType<typeof setInterval>[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Db,
    options: Partial<StreamOptions> = {},
  ) {
    this.options = { ...DEFAULT_STREAM_OPTIONS, ...options };
    this.unsubscribe = feedNotifier(db).subscribe(() => this.schedulePump());
    hubs.add(this);
  }

  get openStreams(): number {
    return this.clients.size;
  }

  /**
   * Opens a stream for `ip`. `lastEventId` (an SSE id this service sent, or any ISO time) replays
   * what was committed after that event, oldest first, before going live.
   */
  open(ip: string, lastEventId: string | null): OpenResult {
    let replay: Replay | null = null;
    let afterAtUs: number | null = null;
    if (lastEventId !== null && lastEventId !== "") {
      afterAtUs = parseBefore(lastEventId);
      if (afterAtUs === null)
        return {
          ok: false,
          status: 400,
          message: "Last-Event-ID must be an event id this stream sent (ISO 8601 with microseconds).",
        };
    }
    if ((this.perIp.get(ip) ?? 0) >= this.options.maxStreamsPerIp) {
      return {
        ok: false,
        status: 429,
        message: `At most ${this.options.maxStreamsPerIp} open streams per client; close one first.`,
      };
    }
    if (this.clients.size >= this.options.maxStreams) {
      return { ok: false, status: 503, message: "Too many open streams; try again later." };
    }
    this.catchUp();
    if (afterAtUs !== null) {
      const start = this.replayStart(afterAtUs);
      if (!start.ok) return { ok: false, status: 400, message: start.message };
      replay = start.replay;
    }
    const client = new StreamClient(this, ip, replay);
    this.clients.add(client);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    this.startTimers();
    return { ok: true, stream: client.stream };
  }

  /**
   * Where a replay after `afterAtUs` starts, found through indexes only (the unique index on
   * `at_us`, the `seq` key): an id newer than the newest event, or older than the replay window,
   * is refused before anything is scanned.
   */
  private replayStart(afterAtUs: number): { ok: true; replay: Replay } | { ok: false; message: string } {
    const newest = query<{ atUs: bigint | null }, []>(this.db, "SELECT MAX(at_us) AS atUs FROM feed_commits").get();
    if (newest?.atUs === null || newest?.atUs === undefined || afterAtUs > Number(newest.atUs))
      return {
        ok: false,
        message: "Last-Event-ID is newer than the newest event; open the stream without it.",
      };
    const tooOld = {
      ok: false as const,
      message: `Last-Event-ID is older than the last ${this.options.replayWindowEvents} events this stream replays; read what came since from /api/ledger, then open the stream without it.`,
    };
    const oldestSeq = this.lastSeq - this.options.replayWindowEvents;
    // parseBefore rounds sub-microsecond digits up; an id this stream sent has exactly six.
    const exact = query<{ seq: bigint }, [atUs: number]>(this.db, "SELECT seq FROM feed_commits WHERE at_us = ?").get(
      afterAtUs,
    );
    if (exact) {
      if (Number(exact.seq) < oldestSeq) return tooOld;
      return { ok: true, replay: { afterSeq: Number(exact.seq), untilSeq: this.lastSeq, minAtUs: -1 } };
    }
    // Not an event of ours: every event later than that time, in commit order. The window's
    // oldest event bounds the time too, so the search below reads at most about a window's entries.
    if (oldestSeq > 0) {
      const boundary = query<{ atUs: bigint }, [seq: number]>(
        this.db,
        "SELECT at_us AS atUs FROM feed_commits WHERE seq = ?",
      ).get(oldestSeq);
      if (boundary && afterAtUs < Number(boundary.atUs)) return tooOld;
    }
    const first = query<{ seq: bigint | null }, [atUs: number]>(
      this.db,
      "SELECT MIN(seq) AS seq FROM feed_commits WHERE at_us > ?",
    ).get(afterAtUs);
    const afterSeq = first?.seq === null || first?.seq === undefined ? this.lastSeq : Number(first.seq) - 1;
    return { ok: true, replay: { afterSeq, untilSeq: this.lastSeq, minAtUs: afterAtUs } };
  }

  /** Frames of one replay page, and where the next page starts (null when done). */
  replayPage(replay: Replay): { frames: Uint8Array[]; next: Replay | null } {
    const rows = this.read(replay.afterSeq, replay.untilSeq, replay.minAtUs);
    const last = rows[rows.length - 1];
    const next = rows.length < PAGE || !last ? null : { ...replay, afterSeq: Number(last.seq) };
    return { frames: this.render(rows), next };
  }

  release(client: StreamClient): void {
    if (!this.clients.delete(client)) return;
    const left = (this.perIp.get(client.ip) ?? 1) - 1;
    if (left <= 0) this.perIp.delete(client.ip);
    else this.perIp.set(client.ip, left);
    if (this.clients.size === 0) {
      this.tracking = false;
      this.stopTimers();
    }
  }

  /** Closes every stream and stops listening (service shutdown). */
  close(): void {
    for (const client of [...this.clients]) client.end();
    this.unsubscribe();
    hubs.delete(this);
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    this.stopTimers();
  }

  private pumpTimer: ReturnType<typeof setTimeout> | null = null;

  private schedulePump(): void {
    if (this.pumpTimer || this.clients.size === 0) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, this.options.coalesceMs);
  }

  /** Reads what was committed since the last look and fans it out. */
  pump(): void {
    if (this.clients.size === 0) {
      this.tracking = false;
      return;
    }
    this.catchUp();
  }

  private catchUp(): void {
    if (!this.tracking) {
      const row = query<{ top: bigint }, []>(this.db, "SELECT COALESCE(MAX(seq), 0) AS top FROM feed_commits").get();
      this.lastSeq = Number(row!.top);
      this.tracking = true;
      return;
    }
    for (;;) {
      const rows = this.read(this.lastSeq, Number.MAX_SAFE_INTEGER, -1);
      if (rows.length === 0) return;
      this.lastSeq = Number(rows[rows.length - 1]!.seq);
      const frames = this.render(rows);
      if (frames.length > 0) for (const client of this.clients) client.push(frames);
      if (rows.length < PAGE) return;
    }
  }

  private read(afterSeq: number, untilSeq: number, minAtUs: number): CommitRow[] {
    return commits(this.db).all({ after: afterSeq, until: untilSeq, minAtUs, limit: PAGE });
  }

  /** Encoded once, shared by every stream. */
  private render(rows: CommitRow[]): Uint8Array[] {
    const visible = rows.filter((r) => Number(r.hidden) === 0);
    return renderFeedRows(this.db, visible).map(({ atUs, event }) =>
      encoder.encode(`id: ${isoMicros(atUs)}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
    );
  }

  private startTimers(): void {
    if (this.timers.length > 0) return;
    const beat = [encoder.encode(": heartbeat\n\n")];
    const heartbeat = setInterval(() => {
      for (const client of this.clients) client.push(beat);
    }, this.options.heartbeatMs);
    const poll = setInterval(() => this.pump(), this.options.fallbackPollMs);
    // Open streams must not keep a finished process (a test, a stopping service) alive.
    heartbeat.unref?.();
    poll.unref?.();
    this.timers = [heartbeat, poll];
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}

class StreamClient {
  readonly stream: ReadableStream<Uint8Array>;
  private queue: Uint8Array[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  constructor(
    private readonly hub: LedgerStreamHub,
    readonly ip: string,
    private replay: Replay | null,
  ) {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        // A short reconnection delay; the browser's EventSource sends Last-Event-ID by itself.
        controller.enqueue(encoder.encode("retry: 3000\n\n"));
      },
      pull: async (controller) => {
        // A page can be all hidden launches (no frames): go on to the next one, not to live.
        while (this.replay && !this.ended) {
          const page = this.hub.replayPage(this.replay);
          this.replay = page.next;
          if (page.frames.length > 0) {
            controller.enqueue(concat(page.frames));
            return;
          }
        }
        if (this.queue.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
        if (this.queue.length > 0) {
          const chunk = this.queue.length === 1 ? this.queue[0]! : concat(this.queue);
          this.queue = [];
          controller.enqueue(chunk);
        }
        if (this.ended) {
          this.hub.release(this);
          controller.close();
        }
      },
      cancel: () => this.end(),
    });
  }

  push(frames: Uint8Array[]): void {
    if (this.ended) return;
    for (const frame of frames) this.queue.push(frame);
    if (this.queue.length > this.hub.options.maxQueuedFrames) {
      // Too slow a reader: drop it rather than hold an unbounded queue; it resumes by its last id.
      this.queue = [];
      this.end();
      return;
    }
    this.signal();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.hub.release(this);
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
