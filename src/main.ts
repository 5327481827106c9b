/**
 * The service process: the chain (the embedded local chain by default), the HTTP API, the job
 * scheduler and the indexer in one Bun process; the chain and the jobs in worker threads of it
 * (src/workers), so the request thread only serves requests. SIGTERM/SIGINT stop it gracefully.
 */
import { loadConfigOrExit } from "./config";
import { log, setLogLevel } from "./lib/log";
import { setupChain } from "./chain/setup";
import { buildService } from "./service";
import { SERVER_BODY_MAX_BYTES } from "./http/body-limit";
import { closeAllStreams } from "./ledger/stream";
import { startSharedThreadsHere } from "./workers/priority";
import { startChainThread, startJobsThread } from "./workers/threads";
import { backupAtShutdown } from "./backup";
import { checkpointAtExit } from "../db/client";
import { checkDatabase, checkPortFree, exitOnStartError } from "./start-checks";

const config = loadConfigOrExit();
setLogLevel(config.logLevel);

/** Everything the process starts, in order; a failure on the way ends it with one line (src/start-checks.ts). */
async function start() {
  // Before the chain or the demo start: a port another process holds, a DATA_DIR that cannot be
  // written, a database a newer version migrated.
  await checkPortFree(config.port, config.host);
  checkDatabase(config.databasePath);
  // Threads every thread shares start at the request thread's priority, not a worker's lower one.
  await startSharedThreadsHere();
  // The embedded chain runs in its own worker thread (src/workers), a real one is reached over RPC.
  const chainThread = config.chain === "local" ? await startChainThread(config) : null;
  const chain = chainThread?.setup ?? (await setupChain(config, (message) => log.info(message)));
  // The jobs, the indexer and the webhook sender run in their own worker thread; the context's
  // runner (ctx.scheduler) is that thread's, and hands the cron route's runs to it.
  const service = buildService(config, {
    chain: chain.services,
    jobs: (books) => startJobsThread(books, chainThread?.endpoints ?? null),
  });
  const jobs = service.ctx.scheduler;
  await jobs.ready();
  if (config.demo && chainThread) await chainThread.startDemo(jobs);
  // Every body limit is the app's (src/http/body-limit.ts), so a refusal is always in the {error}
  // envelope. Elysia turns SO_REUSEPORT on by default: off, a port taken since the check fails here.
  const server = service.app.listen({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: SERVER_BODY_MAX_BYTES,
    reusePort: false,
  });
  return { chain, service, jobs, server };
}

// A bad key or secret is a configuration error too: one line naming the setting.
const { chain, service, jobs, server } = await start().catch((error) => exitOnStartError(error, config.dataDir));
// Schedules, indexer and webhook sender (one per database), all in the jobs' thread; JOBS=off stops them.
jobs.start(service.ctx);
log.info("service started", {
  url: `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.server?.port ?? config.port}`,
  chain: config.chain,
  dataDir: config.dataDir,
  jobs: config.jobsEnabled,
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // The uploads' budget (BACKUP_STOP_TIMEOUT_MS) counts from the signal.
  const stopStartedAtMs = Date.now();
  log.info("shutting down", { signal });
  // Stop taking requests first, then let jobs reach a safe point, then close the books.
  closeAllStreams();
  await server.server?.stop();
  await jobs.stop();
  // The books as they stand once the jobs have stopped, off site; bounded, and logged either way.
  if (config.backup.url !== null) await backupAtShutdown({ db: service.ctx.db, config }, { stopStartedAtMs });
  await service.close();
  await chain.stop();
  const walFrames = checkpointAtExit(config.databasePath);
  if (walFrames > 0) log.warn("the WAL was left by a connection still open; checkpointed at exit", { walFrames });
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
