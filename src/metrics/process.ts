/**
 * The process's own series, under the names Prometheus' client libraries use so stock dashboards
 * and alerts work unchanged: memory, CPU, start time, the build, and the data volume's room.
 */
import { statfsSync } from "node:fs";
import packageJson from "../../package.json";
import { counter, gauge } from "../lib/metrics";

/** Set by scripts/build.ts (`define`); absent when run from source. */
declare const FEE_LEDGER_COMMIT: string;

/** The commit the executable was built from; "unknown" from source, where no build recorded one. */
const BUILD_REVISION = typeof FEE_LEDGER_COMMIT === "string" ? FEE_LEDGER_COMMIT : "unknown";
const BUILD_VERSION: string = packageJson.version;

// Taken once: uptime read at each scrape would drift the start time by rounding between scrapes.
const START_TIME_SECONDS = Math.round(Date.now() / 1000 - process.uptime());

export function processMetrics(dataDir: string): string[] {
  const cpu = process.cpuUsage();
  return [
    gauge("process_resident_memory_bytes", "Resident memory of the process (every thread) in bytes", [
      { value: process.memoryUsage.rss() },
    ]),
    counter("process_cpu_seconds_total", "CPU time of the process (every thread), user and system, in seconds", [
      { value: (cpu.user + cpu.system) / 1e6 },
    ]),
    gauge("process_start_time_seconds", "When the process started, in seconds since the Unix epoch", [
      { value: START_TIME_SECONDS },
    ]),
    gauge("build_info", "The running build: version from package.json, revision the commit it was built from", [
      { labels: { version: BUILD_VERSION, revision: BUILD_REVISION }, value: 1 },
    ]),
    ...dataDirMetrics(dataDir),
  ];
}

/**
 * The volume holding DATA_DIR (the database, the chain state): a full volume stops every ledger
 * write, so alert on the free bytes long before. Nothing when the folder cannot be read.
 */
function dataDirMetrics(dataDir: string): string[] {
  let fs: ReturnType<typeof statfsSync>;
  try {
    fs = statfsSync(dataDir);
  } catch {
    return [];
  }
  return [
    gauge("data_dir_free_bytes", "Bytes the service may still write on the volume holding DATA_DIR", [
      { value: fs.bavail * fs.bsize },
    ]),
    gauge("data_dir_size_bytes", "Size of the volume holding DATA_DIR in bytes", [{ value: fs.blocks * fs.bsize }]),
  ];
}
