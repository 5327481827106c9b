/**
 * What the service checks before it starts anything (the chain, the demo, the threads), and how a
 * start that cannot go on ends: one line on stderr and exit status 1, never a stack trace with the
 * executable's minified source around it.
 */
import { AppError, isAppError } from "./lib/errors";
import { closeDatabase, openDatabase } from "../db/client";

/**
 * Refuses a port another process listens on. Bun's SO_REUSEPORT would otherwise let both processes
 * bind it and the kernel split the connections between them, so a second service (or an old one
 * left running) silently served part of the traffic. Port 0 asks the kernel for a free one.
 */
export async function checkPortFree(port: number, hostname: string): Promise<void> {
  if (port === 0) return;
  let probe: ReturnType<typeof Bun.serve>;
  try {
    probe = Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null, { status: 503 }) });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = code === "EADDRINUSE" ? "is in use by another process" : `cannot be listened on (${String(code)})`;
    throw new AppError("START_PORT_UNAVAILABLE", { port, hostname, reason }, { cause: error });
  }
  await probe.stop(true);
}

/**
 * Opens the database once before anything else starts: a DATA_DIR the service cannot write, or a
 * database a newer version migrated, stops the start here. Pending migrations are applied (and
 * logged) now.
 */
export function checkDatabase(databasePath: string): void {
  closeDatabase(openDatabase(databasePath));
}

/**
 * An error from the operating system or SQLite (a path, a permission, a full disk), by its code;
 * the data directory named when it is the place that failed.
 */
function systemErrorLine(error: unknown, dataDir: string): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string" || !/^(E[A-Z]+|SQLITE_\w+)$/.test(code)) return null;
  const path = (error as { path?: unknown }).path;
  const line = error.message.split("\n")[0] || code;
  if (code.startsWith("SQLITE_")) return `the database in DATA_DIR ${dataDir}: ${line}`;
  const where = typeof path === "string" ? path : line;
  return where.includes(dataDir) ? `DATA_DIR ${dataDir} is not usable: ${line}` : line;
}

/** The one line a failed start prints. */
function startErrorLine(error: unknown, dataDir: string): string {
  if (isAppError(error, "CONFIG_INVALID")) return `Invalid configuration: ${error.message}`;
  if (isAppError(error, "START_PORT_UNAVAILABLE", "DATABASE_FROM_NEWER_VERSION"))
    return `Cannot start: ${error.message}`;
  const system = systemErrorLine(error, dataDir);
  if (system !== null) return `Cannot start: ${system}`;
  // Anything else is a bug: its stack (not the minified source around it) says where.
  return `Cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

export function exitOnStartError(error: unknown, dataDir: string): never {
  process.stderr.write(`${startErrorLine(error, dataDir)}\n`);
  process.exit(1);
}
