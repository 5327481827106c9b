/**
 * What the curve tests share: a node with a coin created by the SDK's `create_v2`, the SDK's
 * view of Global / FeeConfig / the curve, and pump's events read back from a landed transaction
 * both ways an indexer reads them (the self-CPI inner instruction and the `Program data:` log).
 */
import {
  type BondingCurve,
  type FeeConfig,
  GLOBAL_PDA,
  type Global,
  PUMP_FEE_CONFIG_PDA,
  PUMP_PROGRAM_ID,
  PUMP_SDK,
  bondingCurvePda,
} from "@pump-fun/pump-sdk";
import { TOKEN_2022_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, type PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import type { LocalNode, TxRecord } from "../../src/node";
import { EVENT_IX_TAG } from "../../src/native/runtime";
import { accountInfo, pumpNode, send } from "./helpers";

export const SOL = 1_000_000_000n;

export interface Coin {
  node: LocalNode;
  user: Keypair;
  mint: PublicKey;
  creator: PublicKey;
  curve: PublicKey;
  createRecord: TxRecord;
}

export async function createCoin(node: LocalNode = pumpNode()): Promise<Coin> {
  const user = Keypair.generate();
  node.fund(user.publicKey, 1_000n * SOL);
  const mint = Keypair.generate();
  const creator = Keypair.generate().publicKey;
  const ix = await PUMP_SDK.createV2Instruction({
    mint: mint.publicKey,
    name: "Local Coin",
    symbol: "LOCAL",
    uri: "https://example.org/local.json",
    creator,
    user: user.publicKey,
    mayhemMode: false,
  });
  const createRecord = send(node, user, [ix], [mint]);
  if (createRecord.err)
    throw new Error(`create_v2 failed: ${JSON.stringify(createRecord.err)}\n${createRecord.logs.join("\n")}`);
  return { node, user, mint: mint.publicKey, creator, curve: bondingCurvePda(mint.publicKey), createRecord };
}

export function state(node: LocalNode, mint: PublicKey): { global: Global; feeConfig: FeeConfig; curve: BondingCurve } {
  return {
    global: PUMP_SDK.decodeGlobal(accountInfo(node, GLOBAL_PDA)!),
    feeConfig: PUMP_SDK.decodeFeeConfig(accountInfo(node, PUMP_FEE_CONFIG_PDA)!),
    curve: PUMP_SDK.decodeBondingCurve(accountInfo(node, bondingCurvePda(mint))!),
  };
}

export const big = (v: BN | bigint | number): bigint => BigInt(v.toString());
export const bn = (v: bigint | number): BN => new BN(v.toString());

export function userAta(mint: PublicKey, owner: PublicKey): PublicKey {
  return getAssociatedTokenAddressSync(mint, owner, true, TOKEN_2022_PROGRAM_ID);
}

export function tokenAmount(node: LocalNode, account: PublicKey): bigint {
  const a = node.getAccount(account);
  return a ? Buffer.from(a.data).readBigUInt64LE(64) : 0n;
}

/**
 * pump's events in `record`: from each self-CPI (program pump, data = event tag ‖ event) and from
 * the `Program data:` logs, as event bytes (discriminator ‖ body). Both lists, so a test can check
 * they agree.
 */
export function pumpEvents(record: TxRecord): { inner: Buffer[]; logged: Buffer[] } {
  const inner: Buffer[] = [];
  for (const group of record.innerInstructions) {
    for (const ix of group.instructions) {
      const program = record.accountKeys[ix.programIdIndex]!;
      const data = Buffer.from(ix.data);
      if (program.equals(PUMP_PROGRAM_ID) && data.subarray(0, 8).equals(Buffer.from(EVENT_IX_TAG)))
        inner.push(data.subarray(8));
    }
  }
  const logged = record.logs
    .filter((l) => l.startsWith("Program data: "))
    .map((l) => Buffer.from(l.slice("Program data: ".length), "base64"));
  return { inner, logged };
}

/** The body of the first event with discriminator `disc` (what the SDK's decoders take). */
export function eventBody(events: Buffer[], disc: readonly number[]): Buffer {
  const e = events.find((x) => x.subarray(0, 8).equals(Buffer.from(disc)));
  if (!e) throw new Error(`no event ${Buffer.from(disc).toString("hex")}`);
  return e.subarray(8);
}

/** Every account `ixs` name, with its lamports and data now: compared after a refused transaction. */
export function snapshot(node: LocalNode, ixs: readonly TransactionInstruction[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const ix of ixs) {
    for (const k of ix.keys) {
      const a = node.getAccount(k.pubkey);
      out.set(
        k.pubkey.toBase58(),
        a ? `${a.lamports}:${a.owner.toBase58()}:${Buffer.from(a.data).toString("hex")}` : "none",
      );
    }
  }
  return out;
}
