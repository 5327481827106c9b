/**
 * The service process: the chain (the embedded local chain by default), the HTTP API, the job
 * scheduler and the indexer in one Bun process. SIGTERM/SIGINT stop it gracefully.
 */
import { exitOnConfigError, loadConfigOrExit } from "./config";
import { log, setLogLevel } from "./lib/log";
import { setupChain } from "./chain/setup";
import { startDemo } from "./demo/demo";
import { registerJobs } from "./register-jobs";
import { buildService } from "./service";
import { startIndexer } from "../indexer";
import { indexerMetrics } from "./metrics/routes";
import { serverBodyMaxBytes } from "./http/body-limit";
import { closeAllStreams } from "./ledger/stream";
import { WebhookDispatcher } from "./webhooks/dispatcher";
import { webhookSigningKey } from "./webhooks/key";

const config = loadConfigOrExit();
setLogLevel(config.logLevel);

// A bad key or secret is a configuration error too: one line naming the setting.
const chain = await setupChain(config, (message) => log.info(message)).catch(exitOnConfigError);
const service = buildService(config, { chain: chain.services });
registerJobs(service.ctx);
if (config.demo && chain.local) {
  await startDemo(service.ctx.db, chain, {
    platformBps: config.platformBps,
    now: service.ctx.now,
    runSweep: config.jobsEnabled ? () => service.ctx.scheduler.runNow("sweep") : undefined,
  });
}
// The indexer keeps readings and confirmations live between job runs; JOBS=off stops it too.
const indexer = config.jobsEnabled ? startIndexer(service.ctx, chain) : null;
if (indexer) service.ctx.extraMetrics = [() => indexerMetrics(indexer.state())];
// Bun refuses bodies over the largest route limit itself; each route's own limit is enforced while reading.
const server = service.app.listen({
  port: config.port,
  hostname: config.host,
  maxRequestBodySize: serverBodyMaxBytes(config),
});
if (config.jobsEnabled) service.ctx.scheduler.start();
// Webhook deliveries go out from the process that runs the jobs: one sender per database.
const webhooks = config.jobsEnabled
  ? new WebhookDispatcher(service.ctx.db, {
      signingKey: webhookSigningKey(config),
      allowPrivate: config.webhooksAllowPrivate,
      maxInFlightPerEndpoint: config.webhooksMaxInFlight,
    }).start()
  : null;
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
  log.info("shutting down", { signal });
  // Stop taking requests first, then let jobs reach a safe point, then close the books.
  closeAllStreams();
  await server.server?.stop();
  await indexer?.stop();
  await webhooks?.stop();
  await service.close();
  await chain.stop();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
