/**
 * What every JSON-RPC method handler shares: the view of the node a call is answered by, its
 * config, and parameter checks that refuse as agave refuses (-32602 with agave's wording).
 */
import { PublicKey } from "@solana/web3.js";
import { type Commitment, type LocalNode, rpcError } from "../node";
import type { ChainFaults, HistoryHole } from "../faults";
import { addressOfKey, isAddress } from "../address";
import { BOOTSTRAP_DELEGATED_LAMPORTS, genesisValidatorKeys } from "../genesis-validator";

/** The node a call is answered by: `at` is its processed slot (behind the real one under a lag rule). */
export interface View {
  at: bigint;
  /** the slot at the asked commitment (agave's default: finalized) */
  slot: bigint;
  commitment: Commitment;
  /** the first slot of history the node kept (prunedHistory); null when it kept everything */
  historyFloorSlot: bigint | null;
  /** slots missing from the node's ledger above its floor (historyHole); null when none */
  historyHole?: HistoryHole | null;
}

/** Whether `slot` is in the answering node's history hole (its blockstore never had it). */
export function inHole(v: View, slot: bigint): boolean {
  const hole = v.historyHole;
  return !!hole && slot >= hole.fromSlot && slot <= hole.toSlot;
}

export type Handler = (params: unknown[], view: View) => unknown;

export interface RpcContext {
  node: LocalNode;
  faults: ChainFaults;
  /** the port the JSON-RPC listens on (getClusterNodes) */
  rpcPort(): number;
}

/** As agave reports its version: what clients gate features on. */
export const SOLANA_CORE_VERSION = "2.2.0";
export const FEATURE_SET = 3294202862;

export interface Config {
  encoding?: string;
  skipPreflight?: boolean;
  sigVerify?: boolean;
  replaceRecentBlockhash?: boolean;
  searchTransactionHistory?: boolean;
  maxSupportedTransactionVersion?: number;
  commitment?: string;
  minContextSlot?: number;
  innerInstructions?: boolean;
  dataSlice?: { offset: number; length: number };
  withContext?: boolean;
  filters?: unknown;
  transactionDetails?: string;
  rewards?: boolean;
  accounts?: { addresses?: unknown; encoding?: string };
  limit?: number;
  before?: string;
  until?: string;
}

export function configOf(v: unknown): Config {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Config) : {};
}

export function ctx(v: View): { slot: bigint; apiVersion: string } {
  return { slot: v.slot, apiVersion: SOLANA_CORE_VERSION };
}

export function stringParam(v: unknown, name: string): string {
  if (typeof v !== "string") throw rpcError(-32602, `Invalid params: ${name} must be a string`);
  return v;
}

/**
 * An address parameter as its base58 spelling, refused as `new PublicKey` refuses it (anything
 * that does not spell 32 bytes): the account reads look accounts up by string, where a PublicKey
 * per address, spelled again for the lookup, cost more than the lookup.
 */
export function addressParam(v: unknown): string {
  if (!isAddress(v)) throw rpcError(-32602, "Invalid param: Invalid");
  return v;
}

/** The same check, for the methods that need the key's bytes. */
export function pubkeyParam(v: unknown): PublicKey {
  return new PublicKey(addressParam(v));
}

/**
 * A u64 parameter: a JSON number up to 2^64 - 1 (read exactly where the request parser could, see
 * rpc-server.ts). A string is refused, as agave's serde refuses it.
 */
export function u64Param(v: unknown, name: string): bigint {
  if (typeof v === "bigint" && v >= 0n && v < 1n << 64n) return v;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 2 ** 64) return BigInt(v);
  if (typeof v === "string") throw rpcError(-32602, `Invalid params: invalid type: string "${v}", expected u64.`);
  throw rpcError(-32602, `Invalid params: ${name}`);
}

/** A slot parameter (u64); agave refuses anything else with -32602. */
export function slotParam(v: unknown, name = "slot"): bigint {
  return u64Param(v, name);
}

/** Methods that agave answers only at confirmed or finalized. */
export function requireConfirmed(v: View): void {
  if (v.commitment === "processed") throw rpcError(-32602, "Method does not support commitment below `confirmed`");
}

/** The highest block at the view's commitment: the open slot is not a block yet. */
export function highestBlock(v: View): bigint {
  return v.commitment === "finalized" ? v.slot : v.at - 1n;
}

export function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, "") : "";
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** Stake the one local vote account holds: all of the cluster's, the bootstrap stake of genesis. */
export const VOTE_ACCOUNT_STAKE_LAMPORTS = BOOTSTRAP_DELEGATED_LAMPORTS;

/**
 * The node's validator identity and vote account (genesis-validator.ts), derived from its program
 * seed so a restarted chain (same checkpoint) keeps them. They sign nothing.
 */
export function validatorOf(node: LocalNode): { identity: string; vote: string } {
  const keys = genesisValidatorKeys(node.programSeed);
  return { identity: addressOfKey(keys.identity.publicKey), vote: addressOfKey(keys.vote.publicKey) };
}
