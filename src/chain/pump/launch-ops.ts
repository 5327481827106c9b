/**
 * pump.fun's create and buy instructions in a transaction the launch page sends (the
 * `LaunchProgram.launchOps` of the pump adapter). Pure, no I/O.
 */
import type { VersionedTransaction } from "@solana/web3.js";
import type { LaunchOp } from "../ports";
import { DISC, PUMP_PROGRAM_ID } from "./layout";

function u64At(data: Uint8Array, offset: number): bigint | null {
  if (data.length < offset + 8) return null;
  return Buffer.from(data).readBigUInt64LE(offset);
}

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const PUMP_CREATE = [hexOf(DISC.create), hexOf(DISC.createV2)];
const PUMP_BUY = hexOf(DISC.buy);
const PUMP_BUY_EXACT_SOL_IN = hexOf(DISC.buyExactSolIn);
const PROGRAM_ID = PUMP_PROGRAM_ID.toBase58();

/**
 * The pump instructions of a transaction and what each does. Program ids and the mint are read
 * from the static keys only: an address from a lookup table is not resolved (unknown).
 */
export function pumpLaunchOps(tx: VersionedTransaction): LaunchOp[] {
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  const ops: LaunchOp[] = [];
  for (const ix of tx.message.compiledInstructions) {
    const programKey = keys[ix.programIdIndex];
    const accounts = ix.accountKeyIndexes.map((i) => keys[i] ?? "");
    if (programKey !== PROGRAM_ID) continue;
    const disc = Buffer.from(ix.data.slice(0, 8)).toString("hex");
    if (PUMP_CREATE.includes(disc)) ops.push({ kind: "create", mint: accounts[0] || null });
    // buy: amount, max_sol_cost; buy_exact_sol_in: spendable_sol_in, min_tokens_out (PUMP.md §4).
    else if (disc === PUMP_BUY)
      ops.push({ kind: "buy", mint: accounts[2] || null, maxSolLamports: u64At(ix.data, 16) });
    else if (disc === PUMP_BUY_EXACT_SOL_IN)
      ops.push({ kind: "buy", mint: accounts[2] || null, maxSolLamports: u64At(ix.data, 8) });
    else ops.push({ kind: "other", mint: null });
  }
  return ops;
}
