/**
 * A worker that commits as the request thread's vault refreshes do under load: a few pages per
 * commit, a commit every fraction of a millisecond, never checkpointing, never waiting for the
 * lock. Started with the database path, it writes until told to stop and answers with its count
 * of commits and the longest time it found the write lock held by someone else.
 */
import { handOffCheckpoints } from "../../db/checkpoints";
import { openDatabase } from "../../db/client";

declare const self: Worker;
const ROW_BYTES = 3_800;
const ROWS_PER_COMMIT = 8;
const PAUSE_MS = 0.3;

self.onmessage = (event: MessageEvent<{ path: string; walSizeLimitBytes?: number } | "stop">) => {
  if (event.data === "stop") return;
  // As the request thread's connection in the threaded process, writing as a refresh does.
  const db = openDatabase(event.data.path, { walSizeLimitBytes: event.data.walSizeLimitBytes });
  handOffCheckpoints(db);
  const client = db.$client;
  client.exec("PRAGMA synchronous = NORMAL");
  client.exec("PRAGMA busy_timeout = 0");
  const insert = client.query("INSERT INTO readings (body) VALUES (?)");
  const commit = client.transaction(() => {
    for (let i = 0; i < ROWS_PER_COMMIT; i++) insert.run(new Uint8Array(ROW_BYTES));
  });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let commits = 0;
  let busySinceMs: number | null = null;
  let longestBusyMs = 0;
  let stop = false;
  self.onmessage = () => {
    stop = true;
  };
  const burst = () => {
    // Bursts between turns of the event loop, so the stop message is heard.
    const until = performance.now() + 20;
    while (performance.now() < until) {
      try {
        commit.immediate();
        commits++;
        if (busySinceMs !== null) longestBusyMs = Math.max(longestBusyMs, performance.now() - busySinceMs);
        busySinceMs = null;
      } catch {
        busySinceMs ??= performance.now();
      }
      Atomics.wait(pause, 0, 0, PAUSE_MS);
    }
    if (!stop) setImmediate(burst);
    else {
      client.close();
      postMessage({ commits, rows: commits * ROWS_PER_COMMIT, longestBusyMs });
    }
  };
  burst();
};
