/**
 * pump.fun's three programs as the local chain hosts them, at their real ids. What is emulated,
 * instruction by instruction, is tabled in packages/localnet/README.md.
 */
import { PublicKey } from "@solana/web3.js";
import type { NativeProgram } from "../runtime";
import { pumpProgram } from "./pump";
import { pumpAmmProgram } from "./pump-amm";
import { pumpFeesProgram } from "./pump-fees";
import { findProgramAddress } from "../pda";

export function pumpPrograms(): NativeProgram[] {
  return [pumpProgram(), pumpAmmProgram(), pumpFeesProgram()];
}

const PUMP_PROGRAM = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
/** `create_v2` and `create` (the IDL's discriminators): their first account is the coin's mint. */
const CREATE_DISCRIMINATORS = ["d6904cec5f8b31b4", "181ec828051c0777"];
/** pump's BondingCurve account discriminator (the IDL's). */
const BONDING_CURVE_DISCRIMINATOR = "17b7f83760d8ac60";

interface InstructionView {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

/** The mints a landed transaction created through pump (top level or by CPI). */
export function createdPumpMints(record: {
  accountKeys: readonly PublicKey[];
  instructions: readonly InstructionView[];
  innerInstructions: readonly { instructions: readonly InstructionView[] }[];
}): string[] {
  const all = [...record.instructions, ...record.innerInstructions.flatMap((g) => g.instructions)];
  const out: string[] = [];
  for (const ix of all) {
    if (record.accountKeys[ix.programIdIndex]?.toBase58() !== PUMP_PROGRAM) continue;
    if (!CREATE_DISCRIMINATORS.includes(Buffer.from(ix.data.subarray(0, 8)).toString("hex"))) continue;
    const mint = record.accountKeys[ix.accounts[0] ?? -1];
    if (mint) out.push(mint.toBase58());
  }
  return out;
}

/**
 * pump's coins in a chain's state, oldest first: each curve's token account (the Token-2022
 * account its bonding curve owns, at the curve's associated address) names its mint. What a chain
 * continued from its saved state recovers its coins from.
 */
export function pumpMintsIn(
  addresses: Iterable<string>,
  getAccount: (address: string) => { owner: PublicKey; data: Uint8Array } | null,
): string[] {
  const out: string[] = [];
  for (const address of addresses) {
    const account = getAccount(address);
    if (!account || account.owner.toBase58() !== TOKEN_2022_PROGRAM || account.data.length < 165) continue;
    const mint = new PublicKey(account.data.subarray(0, 32));
    const holder = new PublicKey(account.data.subarray(32, 64));
    const curve = getAccount(holder.toBase58());
    if (!curve || curve.owner.toBase58() !== PUMP_PROGRAM) continue;
    if (Buffer.from(curve.data.subarray(0, 8)).toString("hex") !== BONDING_CURVE_DISCRIMINATOR) continue;
    const [expected] = findProgramAddress([Buffer.from("bonding-curve"), mint.toBytes()], new PublicKey(PUMP_PROGRAM));
    if (expected.equals(holder)) out.push(mint.toBase58());
  }
  return out;
}
