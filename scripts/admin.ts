/**
 * Operator CLI for the admin actions, on the box, against the service's database (DATA_DIR):
 *
 *   bun run admin hide <mint> --reason "..."        bun run admin unhide <mint> --reason "..."
 *   bun run admin pause-claims --reason "..."       bun run admin resume-claims
 *   bun run admin pause-launches                    bun run admin resume-launches
 *   bun run admin platform-token <mint>             bun run admin min-claim <lamports>
 *   bun run admin autopay-min <lamports>            bun run admin audit [limit]
 *
 * Every action is audited with the actor `cli:<user>`. Safe while the service runs (WAL, and each
 * action is one short IMMEDIATE transaction).
 */
import { openDatabase } from "../db/client";
import { auditLog, performAdminAction, type AdminAction } from "../src/admin";
import { loadConfigOrExit } from "../src/config";
import { isAppError } from "../src/lib/errors";
import { refuseInOneLine } from "./refusal";

/** The command, as `bun run admin …` or the executable's `fee-ledger admin …` (scripts/cli.ts). */
export function adminCommand(args: readonly string[], invokedAs = "bun run admin"): void {
  refuseInOneLine("admin");

  function usage(message?: string): never {
    // One line: the reason first, then the usage.
    process.stderr.write(
      `${message ? `admin: ${message}; ` : ""}usage: ${invokedAs} <hide|unhide> <mint> | <pause-claims|resume-claims|pause-launches|resume-launches> | platform-token <mint> | <min-claim|autopay-min> <lamports> | audit [limit]  [--reason text]\n`,
    );
    process.exit(2);
  }

  const reasonAt = args.indexOf("--reason");
  const reason = reasonAt >= 0 ? (args[reasonAt + 1] ?? usage("--reason needs a text")) : null;
  const positional = reasonAt >= 0 ? [...args.slice(0, reasonAt), ...args.slice(reasonAt + 2)] : args;
  const [command, arg] = positional;

  const config = loadConfigOrExit();
  const db = openDatabase(config.databasePath);

  function lamportsArg(): bigint {
    if (!arg || !/^\d{1,19}$/.test(arg)) usage("a whole number of lamports is needed");
    return BigInt(arg);
  }

  if (command === "audit") {
    for (const row of auditLog(db, arg ? Number(arg) : 50)) process.stdout.write(`${JSON.stringify(row)}\n`);
    process.exit(0);
  }

  const actions: Record<string, () => AdminAction> = {
    hide: () => ({ action: "hide_token", mint: arg ?? usage("a mint is needed") }),
    unhide: () => ({ action: "unhide_token", mint: arg ?? usage("a mint is needed") }),
    "pause-claims": () => ({ action: "pause_claims" }),
    "resume-claims": () => ({ action: "resume_claims" }),
    "pause-launches": () => ({ action: "pause_launches" }),
    "resume-launches": () => ({ action: "resume_launches" }),
    "platform-token": () => ({ action: "set_platform_token", mint: arg ?? usage("a mint is needed") }),
    "min-claim": () => ({ action: "set_min_claim", lamports: lamportsArg() }),
    "autopay-min": () => ({ action: "set_autopay_min", lamports: lamportsArg() }),
  };
  const build = command ? actions[command] : undefined;
  if (!build) usage(command ? `unknown command: ${command}` : undefined);
  const action = build();
  try {
    performAdminAction(db, { actor: `cli:${process.env.USER ?? "operator"}`, reason, nowMs: Date.now() }, action);
    process.stdout.write(`${action.action}: done\n`);
  } catch (error) {
    // The operator's own mistakes (input, or a mint never launched) are printed; anything else is a fault.
    if (isAppError(error) && (error.kind === "input" || error.kind === "missing")) {
      process.stderr.write(`admin: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  } finally {
    db.$client.close();
  }
}

if (import.meta.main) adminCommand(process.argv.slice(2));
