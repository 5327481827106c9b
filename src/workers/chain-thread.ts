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
import { nameThisThread, THREAD_NAMES, yieldToRequests } from "./priority";
import { RUN_ANSWER_MAX_MS, type ChainProtocol, type WorkerStart } from "./protocol";

export interface ChainThreadStart extends WorkerStart {
  programSeed: Uint8Array;
}

const { start, parent } = parentOf<ChainProtocol, ChainThreadStart>();
nameThisThread(THREAD_NAMES.chain);
// The node works mostly for the jobs (their sends and reads); a detail's refresh waits on it too,
// but then the request thread is idle and the jobs' thread is as low as this one.
yieldToRequests();
const config = loadConfig(start.env);
setLogLevel(config.logLevel);
// The demo's launches are feed events: webhooks hear of them as of any other thread's.
connectFeedListeners();
const { local, endpoints } = await startEmbeddedChain(config, {
  programSeed: start.programSeed,
  log: (message) => log.info(message),
});

let db: Db | null = null;
let demo: { stop(): void } | null = null;

async function runDemo(): Promise<null> {
  db = openDatabase(config.databasePath);
  const over = setupChainOverEndpoints(config, endpoints);
  demo = await startDemo(
    db,
    { ...over, local, stop: () => local.stop() },
    {
      platformBps: config.platformBps,
      now: Date.now,
      runSweep: config.jobsEnabled ? () => parent.request("run", "sweep", RUN_ANSWER_MAX_MS) : undefined,
    },
  );
  return null;
}

async function stop(): Promise<null> {
  demo?.stop();
  await local.stop();
  if (db) closeDatabase(db);
  db = null;
  return null;
}

parent.serve({ demo: runDemo, stop });
parent.notify({ type: "ready", endpoints });
