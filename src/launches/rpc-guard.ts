/**
 * What `/api/rpc` lets through: the methods and parameter shapes the launch page sends, rebuilt
 * from checked values (so no option such as simulate's `accounts` reaches the provider), and for
 * send/simulate only a transaction that is the create or first buy of an open launch intent of
 * this site, within its window, paid by that intent's wallet, and that calls no program but the
 * ones a launch needs (System, SPL Token, Token-2022, Associated Token, Compute Budget and the
 * launch program). Anything bundled beside the launch (a transfer through another program, a trade
 * on another venue) is refused, so the operator's provider key relays launches and nothing else.
 */
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { ComputeBudgetProgram, PublicKey, SystemProgram, type VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { AppContext } from "../context";
import { AppError } from "../lib/errors";
import type { LaunchProgram } from "../chain/ports";
import { intentForMint, type Intent } from "./intents";
import { LANDING_GRACE_MS } from "./service";

/** Programs a launch transaction uses besides the launch program itself (wallets add a compute budget). */
const LAUNCH_SUPPORT_PROGRAMS: ReadonlySet<string> = new Set(
  [
    SystemProgram.programId,
    TOKEN_PROGRAM_ID,
    TOKEN_2022_PROGRAM_ID,
    ASSOCIATED_TOKEN_PROGRAM_ID,
    ComputeBudgetProgram.programId,
  ].map((id) => id.toBase58()),
);
/** The local launch program speaks through memos signed by its event authority (its `programId`). */
const MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

const COMMITMENTS = new Set(["processed", "confirmed", "finalized"]);
/** The page polls one signature; a few leave room for a retry. */
const MAX_SIGNATURES = 10;
/** The embedded local chain's airdrop the page asks for a test wallet (public/src/pages/launch.ts). */
const MAX_AIRDROP_LAMPORTS = 10_000_000_000;

function isAddressText(value: unknown): value is string {
  if (typeof value !== "string" || value.length < 32 || value.length > 44) return false;
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

function isSignatureText(value: unknown): value is string {
  if (typeof value !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(value)) return false;
  try {
    return bs58.decode(value).length === 64;
  } catch {
    return false;
  }
}

/** An options object with only the listed keys, each checked; anything else is refused. */
function options(
  value: unknown,
  allowed: Record<string, (v: unknown) => boolean>,
): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new AppError("RPC_OPTIONS_NOT_OBJECT");
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const check = allowed[key];
    if (!check) throw new AppError("RPC_OPTION_UNAVAILABLE", { option: key.slice(0, 40) });
    if (!check(v)) throw new AppError("RPC_OPTION_INVALID", { option: key });
    out[key] = v;
  }
  return out;
}

const commitment = (v: unknown) => typeof v === "string" && COMMITMENTS.has(v);
const encoding = (v: unknown) => v === "base64" || v === "base58";
const bool = (v: unknown) => typeof v === "boolean";
const smallInt = (max: number) => (v: unknown) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= max;

function arity(params: unknown[], min: number, max: number): void {
  if (params.length < min || params.length > max)
    throw new AppError("RPC_PARAMS_COUNT", { count: min === max ? `${min}` : `${min} to ${max}` });
}

/** The params the provider gets: only the shapes the page uses, rebuilt from checked values. */
export function checkedParams(method: string, raw: unknown[] | undefined): unknown[] {
  const params = raw ?? [];
  const withOptions = (first: unknown[], opts: Record<string, unknown> | undefined) =>
    opts ? [...first, opts] : first;
  switch (method) {
    case "getGenesisHash":
      arity(params, 0, 0);
      return [];
    case "getBalance":
      arity(params, 1, 2);
      if (!isAddressText(params[0])) throw new AppError("RPC_PARAM_NOT_ADDRESS");
      return withOptions(
        [params[0]],
        options(params[1], { commitment, minContextSlot: smallInt(Number.MAX_SAFE_INTEGER) }),
      );
    case "getSignatureStatuses": {
      arity(params, 1, 2);
      const list = params[0];
      if (!Array.isArray(list) || list.length < 1 || list.length > MAX_SIGNATURES || !list.every(isSignatureText)) {
        throw new AppError("RPC_SIGNATURES_INVALID", { maximum: MAX_SIGNATURES });
      }
      return withOptions([list], options(params[1], { searchTransactionHistory: bool }));
    }
    case "sendTransaction":
      arity(params, 1, 2);
      return withOptions(
        [params[0]],
        options(params[1], {
          encoding,
          preflightCommitment: commitment,
          skipPreflight: bool,
          maxRetries: smallInt(10),
          minContextSlot: smallInt(Number.MAX_SAFE_INTEGER),
        }),
      );
    case "simulateTransaction":
      arity(params, 1, 2);
      // No `accounts` (it would read any account through the provider) and no inner instructions.
      return withOptions(
        [params[0]],
        options(params[1], { encoding, commitment, sigVerify: bool, replaceRecentBlockhash: bool }),
      );
    case "requestAirdrop":
      arity(params, 2, 2);
      if (!isAddressText(params[0])) throw new AppError("RPC_PARAM_NOT_ADDRESS");
      if (!smallInt(MAX_AIRDROP_LAMPORTS)(params[1]) || (params[1] as number) <= 0)
        throw new AppError("RPC_AIRDROP_INVALID");
      return [params[0], params[1]];
    default:
      throw new AppError("RPC_METHOD_UNAVAILABLE");
  }
}

/**
 * Refuses (400) a transaction that is not the create or first buy of an open launch of this site,
 * paid by the intent's wallet. A create: the metadata step is done (or its create failed and may be
 * retried) and the window is open. A first buy without the create (the page sends it after the
 * confirm on the local chain): the draft has a first buy, the buy spends at most that, and the
 * window, plus the landing grace confirm also allows, has not closed.
 */
export function checkLaunchTransaction(
  ctx: AppContext,
  tx: VersionedTransaction,
  program: Pick<LaunchProgram, "launchOps" | "kind" | "programId">,
): Intent {
  checkProgramsCalled(tx, program);
  // Which instructions create or buy is the launch program's knowledge (its adapter's launchOps).
  const ops = program.launchOps(tx);
  if (ops.length === 0) throw new AppError("RPC_NOT_LAUNCH");
  const notOurs = () => new AppError("RPC_NOT_OUR_LAUNCH");
  if (ops.some((op) => op.kind === "other" || op.mint === null)) throw notOurs();
  const mints = new Set(ops.map((op) => op.mint!));
  if (mints.size !== 1) throw notOurs();
  const [mint] = [...mints];
  const intent = intentForMint(ctx.db, mint!);
  if (!intent) throw notOurs();
  // The deployer pays for its own launch: nobody else's transaction rides on the intent.
  if (tx.message.staticAccountKeys[0]?.toBase58() !== intent.wallet) throw notOurs();
  const now = ctx.now();
  const creates = ops.filter((op) => op.kind === "create").length;
  const buys = ops.filter((op) => op.kind === "buy");
  if (creates > 1 || buys.length > 1) throw notOurs();
  if (creates === 1) {
    if (intent.status !== "metadata" && intent.status !== "failed") throw notOurs();
    if (now > intent.expiresAtMs) throw notOurs();
  } else {
    if (intent.status !== "metadata" && intent.status !== "failed" && intent.status !== "confirmed") throw notOurs();
    if (now > intent.expiresAtMs + LANDING_GRACE_MS) throw notOurs();
  }
  if (buys.length === 1) {
    const firstBuyLamports = BigInt(intent.draft.firstBuyLamports);
    const spend = buys[0]!.maxSolLamports;
    // pump's plain buy bounds the cost with fees on top; a tenth covers them.
    const bound = firstBuyLamports + firstBuyLamports / 10n;
    if (firstBuyLamports <= 0n || spend === null || spend === undefined || spend > bound) throw notOurs();
  }
  return intent;
}

/**
 * Refuses (400) a transaction with a top-level instruction of any program a launch does not use.
 * Program ids cannot come from address lookup tables, so the static keys name every one.
 */
function checkProgramsCalled(tx: VersionedTransaction, program: Pick<LaunchProgram, "kind" | "programId">): void {
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  for (const ix of tx.message.compiledInstructions) {
    const called = keys[ix.programIdIndex];
    if (called === undefined) throw new AppError("RPC_TRANSACTION_UNDECODABLE");
    if (called === program.programId || LAUNCH_SUPPORT_PROGRAMS.has(called)) continue;
    const localEvent =
      program.kind === "local" &&
      called === MEMO_PROGRAM_ID &&
      keys[ix.accountKeyIndexes[0] ?? -1] === program.programId;
    if (localEvent) continue;
    throw new AppError("RPC_PROGRAM_REFUSED");
  }
}
