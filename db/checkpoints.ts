/**
 * Which connection copies the WAL back into the database file. SQLite checkpoints inside the
 * commit that takes the WAL past `wal_autocheckpoint` pages, on the connection that commits. On the
 * request thread that commit then holds the event loop for the copy and its fsync (about 30 ms on
 * the 1.6 GB database of 100k tokens, once every few hundred vault refreshes), and every request in
 * flight waits for it. So when a background thread exists, the request thread's connection hands
 * checkpoints over and that thread checkpoints on a timer (and in its own commits, as before).
 *
 * A passive checkpoint alone does not keep the WAL small while another thread commits often. The
 * next writer starts the WAL over only if, when it begins, every frame has been copied back; a
 * passive checkpoint copies the frames that existed when it started, and the request thread's
 * vault refreshes commit every few milliseconds, so one always lands during the copy. Measured at
 * 100k tokens with 32 connections of random details: the WAL grew by ~35 MB a second and never
 * started over (355 MB after 9 s), and a refresh's commit cost 430-600 µs instead of 80, most of
 * it the kernel allocating and zeroing the file's new blocks. So once the WAL is past
 * `WAL_RESTART_FRAMES`, the timer also runs a RESTART checkpoint: it holds off writers for the
 * short copy of what is left and waits for readers to leave the old frames, and the next commit
 * writes the WAL from its start again.
 */
import { open } from "node:fs/promises";
import { log } from "../src/lib/log";
import { withBusyTimeout } from "./busy-timeout";
import type { Db } from "./client";
import { query } from "./statement";

const CHECKPOINT_EVERY_MS = 1_000;
/** 16 MiB of 4 KiB pages. A WAL this long was not started over by a passive checkpoint. */
const WAL_RESTART_FRAMES = 4_000;
/**
 * How long a RESTART checkpoint waits for the writer and then for readers of the old frames. It
 * holds off every other writer meanwhile (the request thread's refresh skips its write), so the
 * wait is short; a reader that stays longer (a history export streaming its rows) makes it give
 * up, and the next attempt waits twice as long as the last, up to `RESTART_BACKOFF_MS_MAX`.
 */
const RESTART_BUSY_WAIT_MS = 25;
const RESTART_BACKOFF_MS_MAX = 60_000;

interface CheckpointResult {
  busy: number | bigint;
  log: number | bigint;
  checkpointed: number | bigint;
}

export interface CheckpointOptions {
  everyMs?: number;
  restartFrames?: number;
}

/** This connection's commits never checkpoint; another connection must run `startCheckpoints`. */
export function handOffCheckpoints(db: Db): void {
  db.$client.exec("PRAGMA wal_autocheckpoint = 0");
}

/**
 * Writes the database file's dirty pages to disk holding no lock: the passive checkpoint just put
 * them there, and the RESTART checkpoint's own fsync, which runs with writers held off, then has
 * little left to write (measured: ~60 ms of flushing moved out of that window, which fell to ~20).
 */
async function flushDatabaseFile(path: string): Promise<void> {
  const file = await open(path, "r");
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
}

/**
 * A passive checkpoint every `everyMs`: it copies what no reader still needs and never waits for
 * a lock, so it cannot stall the writers. When the WAL is still longer than `restartFrames`
 * afterwards, it is started over (see the header). Returns the stop function (call it before
 * closing `db`).
 */
export function startCheckpoints(db: Db, options: CheckpointOptions = {}): () => void {
  const everyMs = options.everyMs ?? CHECKPOINT_EVERY_MS;
  const restartFrames = options.restartFrames ?? WAL_RESTART_FRAMES;
  const client = db.$client;
  const path = client.filename;
  const passive = query<CheckpointResult, []>(client, "PRAGMA wal_checkpoint(PASSIVE)");
  const restart = query<CheckpointResult, []>(client, "PRAGMA wal_checkpoint(RESTART)");
  let stopped = false;
  let running = false;
  let backoffMs = everyMs;
  let nextRestartAtMs = 0;

  const restartLog = async (frames: number): Promise<void> => {
    await flushDatabaseFile(path);
    if (stopped) return;
    const result = withBusyTimeout(client, RESTART_BUSY_WAIT_MS, () => restart.get());
    if (result && Number(result.busy) === 0) {
      backoffMs = everyMs;
      return;
    }
    backoffMs = Math.min(backoffMs * 2, RESTART_BACKOFF_MS_MAX);
    nextRestartAtMs = Date.now() + backoffMs;
    // A reader kept old frames in use; the WAL keeps growing until it leaves.
    const fields = { frames, retryInMs: backoffMs };
    if (backoffMs === RESTART_BACKOFF_MS_MAX)
      log.warn("WAL could not be started over: a reader holds old frames", fields);
    else log.info("WAL restart deferred: a reader holds old frames", fields);
  };

  const tick = async (): Promise<void> => {
    if (running || stopped) return;
    running = true;
    try {
      const result = passive.get();
      const frames = result ? Number(result.log) : -1;
      if (frames <= restartFrames || Date.now() < nextRestartAtMs) return;
      await restartLog(frames);
    } catch (error) {
      log.warn("WAL checkpoint failed", { error });
    } finally {
      running = false;
    }
  };

  const timer = setInterval(() => void tick(), everyMs);
  return () => {
    stopped = true;
    clearInterval(timer);
    passive.finalize();
    restart.finalize();
  };
}
