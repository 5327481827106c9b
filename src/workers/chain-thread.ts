/**
 * Worker thread: the embedded local chain (LiteSVM node, JSON-RPC, Yellowstone gRPC, PubSub) and,
 * when DEMO is on, the demo that trades on it. Nothing here runs on the request thread: its
 * clients reach the node over loopback like any RPC client. The demo writes through this thread's
 * own database connection and asks the request thread for its early sweeps, which hands them to
 * the jobs' thread.
 */
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { setupChainOverEndpoints, startEmbeddedChain } from "../chain/setup";
import { loadConfig } from "../config";
import { startDemo } from "../demo/demo";
import { connectFeedListeners } from "../feed-listeners";
import { log, setLogLevel } from "../lib/log";
import { parentOf } from "./port";
import { yieldToRequests } from "./priority";
import type { WorkerStart } from "./protocol";

export interface ChainThreadStart extends WorkerStart {
  programSeed: Uint8Array;
}

const parent = parentOf<ChainThreadStart>();
// The node works mostly for the jobs (their sends and reads); a detail's refresh waits on it too,
// but then the request thread is idle and the jobs' thread is as low as this one.
yieldToRequests();
const config = loadConfig(parent.start.env);
setLogLevel(config.logLevel);
// The demo's launches are feed events: webhooks hear of them as of any other thread's.
connectFeedListeners();
const { local, endpoints } = await startEmbeddedChain(config, {
  programSeed: parent.start.programSeed,
  log: (message) => log.info(message),
});

let db: Db | null = null;
let demo: { stop(): void } | null = null;

async function runDemo(): Promise<void> {
  db = openDatabase(config.databasePath);
  const over = setupChainOverEndpoints(config, endpoints);
  demo = await startDemo(
    db,
    { ...over, local, stop: () => local.stop() },
    {
      platformBps: config.platformBps,
      now: Date.now,
      runSweep: config.jobsEnabled ? () => parent.runJob("sweep") : undefined,
    },
  );
  parent.post({ type: "demo-done" });
}

parent.on(async (message) => {
  if (message.type === "demo") await runDemo();
  if (message.type !== "stop") return;
  demo?.stop();
  await local.stop();
  if (db) closeDatabase(db);
  db = null;
  parent.post({ type: "stopped" });
});
parent.post({ type: "ready", registered: [], endpoints });
