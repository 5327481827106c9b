/**
 * The single executable's entry (`npm run build` makes dist/fee-ledger from it; `bun run
 * scripts/cli.ts` behaves the same): with no command it is the service, exactly as `npm start`; the
 * operator commands are the npm scripts' own code.
 *
 *   fee-ledger                           the service (src/main.ts)
 *   fee-ledger --version                 version and commit
 *   fee-ledger backup <file>             fee-ledger restore <file>
 *   fee-ledger admin …                   fee-ledger verify-liabilities <proof.json>
 *   fee-ledger health                    exit 0 when the running service's /api/cron/health is 200
 */
import { accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import packageJson from "../package.json";
import { insideExecutable } from "../src/lib/app-files";
import { execSelf } from "../src/lib/exec";
import { RUNTIME_ENV, runtimeEnv } from "../src/workers/runtime-env";

/** Set by scripts/build.ts (`--define`); absent when run from source. */
declare const FEE_LEDGER_COMMIT: string;

const NAME = "fee-ledger";
const commit = typeof FEE_LEDGER_COMMIT === "string" ? FEE_LEDGER_COMMIT : "source";
const USAGE = `usage: ${NAME} [--version | backup <file> | restore <file> | admin <command> | verify-liabilities <proof.json> | health]`;

const [command, ...args] = process.argv.slice(2);

switch (command) {
  case undefined:
  case "serve":
    serve();
    await import("../src/main");
    break;
  case "--version":
  case "-v":
  case "version":
    process.stdout.write(
      `${NAME} ${packageJson.version} (commit ${commit}; Bun ${Bun.version}, ${process.platform}-${process.arch})\n`,
    );
    break;
  case "backup":
    await (await import("./backup")).backupCommand(args, `${NAME} backup`);
    break;
  case "restore":
    await (await import("./restore")).restoreCommand(args, `${NAME} restore`);
    break;
  case "admin":
    (await import("./admin")).adminCommand(args, `${NAME} admin`);
    break;
  case "verify-liabilities":
    (await import("./verify-liabilities")).verifyLiabilitiesCommand(args, `${NAME} verify-liabilities`);
    break;
  case "health":
    process.exit((await healthy()) ? 0 : 1);
    break;
  case "--help":
  case "-h":
  case "help":
    process.stdout.write(`${USAGE}\n`);
    break;
  default:
    process.stderr.write(`${NAME}: unknown command ${JSON.stringify(command)}; ${USAGE}\n`);
    process.exit(2);
}

/**
 * The service's runtime settings (src/workers/runtime-env.ts) are read as the process starts; `npm
 * start` and the container image set them before it. The executable started bare sets them by
 * starting itself again in its own place (same process id, so signals and exit status are unchanged).
 */
function serve(): void {
  if (!insideExecutable) return;
  // Bun loads each native addon (LiteSVM, sharp, the Yellowstone client) from a file it writes there.
  try {
    accessSync(tmpdir(), constants.W_OK);
  } catch {
    process.stderr.write(`${NAME}: the temporary folder ${tmpdir()} is not writable; set TMPDIR to one that is\n`);
    process.exit(1);
  }
  if (Object.keys(RUNTIME_ENV).every((name) => process.env[name] !== undefined)) return;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  execSelf(process.argv.slice(2), { ...env, ...runtimeEnv(process.env) });
  // Returned: the settings stay Bun's defaults, which only cost memory.
}

/** For a container's health check, which has no HTTP client of its own in a slim image. */
async function healthy(): Promise<boolean> {
  const port = process.env.PORT || "3000";
  // A wildcard listens on loopback too; an address of its own (HOST=10.0.0.5) is asked there.
  const host = !process.env.HOST || ["0.0.0.0", "::"].includes(process.env.HOST) ? "127.0.0.1" : process.env.HOST;
  const address = host.includes(":") ? `[${host}]` : host;
  try {
    const response = await fetch(`http://${address}:${port}/api/cron/health`, { signal: AbortSignal.timeout(4_000) });
    return response.status === 200;
  } catch {
    return false;
  }
}
