/**
 * Sending, simulating and reading transactions as agave answers them: sendTransaction,
 * simulateTransaction (with its `accounts` config), getSignatureStatuses, getSignaturesForAddress,
 * getTransaction, getLatestBlockhash, isBlockhashValid, getFeeForMessage, requestAirdrop,
 * getMinimumBalanceForRentExemption.
 */
import { VersionedMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { BASE58_ALPHABET } from "../address";
import { computeFee, rpcError, STATUS_CACHE_SLOTS } from "../node";
import {
  addressParam,
  type Config,
  configOf,
  ctx,
  type Handler,
  inHole,
  pubkeyParam,
  requireConfirmed,
  type RpcContext,
  stringParam,
  u64Param,
  type View,
} from "./context";
import type { Account } from "./accounts";
import { ixJson, metaJson, returnDataJson, txEncodingOf, txJson, versionOf } from "./encode";

const MAX_SIGNATURE_STATUSES = 256;
/** agave's MAX_BASE58_SIZE / MAX_BASE64_SIZE: a packet's 1232 bytes, encoded */
const MAX_BASE58_TX_CHARS = 1683;
const MAX_BASE64_TX_CHARS = 1644;
/**
 * The most one requestAirdrop gives: solana-test-validator's faucet holds 1,000,000 SOL by default
 * and has no per-request cap, so no request above that can succeed there; the local faucet refuses
 * such requests the way agave refuses a faucet error (-32603 Internal error).
 */
const AIRDROP_CAP_LAMPORTS = 1_000_000n * 1_000_000_000n;

type AccountJson = (address: string, cfg: Config, v: View) => unknown;
type EncodeAccount = (acc: Account, cfg: Config, v: View) => unknown;

/** A transaction as sendTransaction/simulateTransaction receive it; agave's -32602 when it is not one. */
function wireOf(raw: string, encoding: string | undefined): Uint8Array {
  const enc = encoding ?? "base58";
  if (enc === "base58") {
    if (raw.length > MAX_BASE58_TX_CHARS)
      throw rpcError(
        -32602,
        `base58 encoded solana_transaction::versioned::VersionedTransaction too large: ${raw.length} bytes (max: encoded/raw ${MAX_BASE58_TX_CHARS}/1232)`,
      );
    const bad = [...raw].findIndex((ch) => !BASE58_ALPHABET.includes(ch));
    if (bad >= 0)
      throw rpcError(-32602, `invalid base58 encoding: InvalidCharacter { character: '${raw[bad]}', index: ${bad} }`);
    return bs58.decode(raw);
  }
  if (enc === "base64") {
    if (raw.length > MAX_BASE64_TX_CHARS)
      throw rpcError(
        -32602,
        `base64 encoded solana_transaction::versioned::VersionedTransaction too large: ${raw.length} bytes (max: encoded/raw ${MAX_BASE64_TX_CHARS}/1232)`,
      );
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(raw)) throw rpcError(-32602, "invalid base64 encoding: InvalidByte");
    return Buffer.from(raw, "base64");
  }
  throw rpcError(-32602, `Invalid params: unknown variant \`${enc}\`, expected \`base58\` or \`base64\`.`);
}

/** What the handlers share: the node, its fault counters, and the account encoders of accounts.ts. */
interface TxReads {
  node: RpcContext["node"];
  faults: RpcContext["faults"];
  accountJson: AccountJson;
  encodeAccount: EncodeAccount;
}

export function transactionMethods(
  c: RpcContext,
  accountJson: AccountJson,
  encodeAccount: EncodeAccount,
): Record<string, Handler> {
  const { node } = c;
  const t: TxReads = { node, faults: c.faults, accountJson, encodeAccount };

  return {
    getLatestBlockhash: (_p, v) => {
      const { blockhash, lastValidBlockHeight } =
        v.slot < node.getSlot() ? node.blockhashAt(v.slot) : node.getLatestBlockhash();
      return { context: ctx(v), value: { blockhash, lastValidBlockHeight } };
    },
    isBlockhashValid: (p, v) => ({
      context: ctx(v),
      value: node.isBlockhashValidAt(stringParam(p[0], "blockhash"), v.slot),
    }),
    getMinimumBalanceForRentExemption: (p) => {
      const len = Number(p[0] ?? 0);
      if (!Number.isInteger(len) || len < 0 || len > 10 * 1024 * 1024)
        throw rpcError(-32602, "Invalid params: data length");
      return node.minimumBalanceForRentExemption(len);
    },
    getFeeForMessage: (p, v) => feeForMessage(t, p, v),
    requestAirdrop: (p) => {
      const to = pubkeyParam(p[0]);
      const lamports = u64Param(p[1], "lamports");
      if (lamports === 0n) throw rpcError(-32602, "Invalid params: lamports");
      if (lamports > AIRDROP_CAP_LAMPORTS) throw rpcError(-32603, "Internal error");
      return node.airdrop(to, lamports);
    },
    sendTransaction: (p) => {
      const cfg = configOf(p[1]);
      const wire = wireOf(stringParam(p[0], "transaction"), cfg.encoding);
      return node.sendWire(wire, { skipPreflight: cfg.skipPreflight === true });
    },
    simulateTransaction: (p, v) => simulateTransaction(t, p, v),
    getSignatureStatuses: (p, v) => signatureStatuses(t, p, v),
    getSignaturesForAddress: (p, v) => signaturesForAddress(t, p, v),
    getTransaction: (p, v) => getTransaction(t, p, v),
  };
}

function pruned(v: View, slot: bigint): boolean {
  return v.historyFloorSlot !== null && slot < v.historyFloorSlot;
}

/**
 * A record of a slot in the node's history hole, past its status cache: its blockstore never
 * had the slot (getSignatureStatuses' history search, getTransaction, getSignaturesForAddress).
 * The status cache came with the snapshot the node restarted from, so a slot still within it
 * is found there, as on agave.
 */
function holed({ faults }: TxReads, v: View, slot: bigint, statusCache: boolean): boolean {
  if (!inHole(v, slot) || (statusCache && v.at - slot <= STATUS_CACHE_SLOTS)) return false;
  faults.countHoleAnswer();
  return true;
}

function feeForMessage({ node }: TxReads, p: unknown[], v: View): unknown {
  let message: VersionedMessage;
  try {
    message = VersionedMessage.deserialize(Buffer.from(stringParam(p[0], "message"), "base64"));
  } catch {
    throw rpcError(-32602, "Invalid params: invalid message");
  }
  const tx = new VersionedTransaction(message);
  if (!node.isBlockhashValidAt(message.recentBlockhash, v.slot) && !node.acceptsBlockhash(tx))
    return { context: ctx(v), value: null };
  return { context: ctx(v), value: computeFee(tx) };
}

function simulateTransaction(t: TxReads, p: unknown[], v: View): unknown {
  const { node } = t;
  const cfg = configOf(p[1]);
  const wire = wireOf(stringParam(p[0], "transaction"), cfg.encoding);
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(wire);
  } catch (e) {
    throw rpcError(
      -32602,
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`,
    );
  }
  if (cfg.sigVerify && cfg.replaceRecentBlockhash)
    throw rpcError(-32602, "sigVerify may not be used with replaceRecentBlockhash");
  const wanted = cfg.accounts ? accountsConfigOf(cfg.accounts, tx) : null;
  const sim = node.simulate(tx, {
    sigVerify: cfg.sigVerify === true,
    replaceRecentBlockhash: cfg.replaceRecentBlockhash === true,
    coSign: true,
    postAccounts: wanted !== null,
  });
  const latest = node.getLatestBlockhash();
  const accounts = wanted
    ? wanted.addresses.map((address) => {
        if (sim.err) return null;
        const post = sim.postAccounts?.get(address);
        if (!post) return t.accountJson(address, { encoding: wanted.encoding }, { ...v, slot: v.at });
        if (post.lamports === 0n) return null;
        return t.encodeAccount(post, { encoding: wanted.encoding }, { ...v, slot: v.at });
      })
    : null;
  return {
    context: ctx(v),
    value: {
      err: sim.err,
      logs: sim.logs,
      accounts,
      unitsConsumed: sim.unitsConsumed,
      returnData: sim.returnData ? returnDataJson(sim.returnData) : null,
      innerInstructions: cfg.innerInstructions
        ? sim.innerInstructions.map((i) => ({ index: i.index, instructions: i.instructions.map(ixJson) }))
        : null,
      replacementBlockhash: cfg.replaceRecentBlockhash ? latest : null,
    },
  };
}

function signatureStatuses(t: TxReads, p: unknown[], v: View): unknown {
  const sigs = p[0];
  if (!Array.isArray(sigs)) throw rpcError(-32602, "Invalid params: expected an array of signatures");
  if (sigs.length > MAX_SIGNATURE_STATUSES)
    throw rpcError(-32602, `Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
  const history = configOf(p[1]).searchTransactionHistory === true;
  let hid = false;
  const value = sigs.map((s) => {
    const st = t.node.getSignatureStatus(stringParam(s, "signature"), history, v.at);
    if (st && holed(t, v, st.record.slot, true)) return null;
    if (!st || !pruned(v, st.record.slot)) return st;
    hid = true;
    return null;
  });
  if (hid) t.faults.countPrunedAnswer();
  return {
    context: ctx(v),
    value: value.map((st) => {
      if (!st) return null;
      return {
        slot: st.record.slot,
        confirmations: st.confirmations,
        err: st.record.err,
        status: st.record.err ? { Err: st.record.err } : { Ok: null },
        confirmationStatus: st.commitment,
      };
    }),
  };
}

function signaturesForAddress(t: TxReads, p: unknown[], v: View): unknown {
  requireConfirmed(v);
  const address = addressParam(p[0]);
  const cfg = configOf(p[1]);
  const limit = cfg.limit ?? 1000;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw rpcError(-32602, "Invalid limit; max 1000");
  const highest = v.slot;
  const known = t.node
    .signaturesForAddress(address, { limit: 1000, before: cfg.before, until: cfg.until })
    .filter((r) => r.slot <= highest)
    .slice(0, limit);
  const inLedger = known.filter((r) => !holed(t, v, r.slot, false));
  const kept = inLedger.filter((r) => !pruned(v, r.slot));
  if (kept.length < inLedger.length) t.faults.countPrunedAnswer();
  return kept.map((r) => ({
    signature: r.signature,
    slot: r.slot,
    err: r.err,
    memo: null,
    blockTime: r.blockTimeSec,
    confirmationStatus: t.node.commitmentOf(r.slot, v.at),
  }));
}

function getTransaction(t: TxReads, p: unknown[], v: View): unknown {
  const { node } = t;
  const signature = stringParam(p[0], "signature");
  const cfg = typeof p[1] === "string" ? { encoding: p[1] } : configOf(p[1]);
  const encoding = txEncodingOf(cfg.encoding);
  // As agave: "processed" is refused, the default is "finalized", and a transaction is only
  // returned once its slot has reached the asked commitment.
  requireConfirmed(v);
  const record = node.getTransactionAt(signature, v.at);
  if (!record || holed(t, v, record.slot, false)) return null;
  if (pruned(v, record.slot)) {
    t.faults.countPrunedAnswer();
    return null;
  }
  const version = versionOf(record, cfg.maxSupportedTransactionVersion);
  const reached = node.commitmentOf(record.slot, v.at);
  if (reached === "processed" || (v.commitment === "finalized" && reached !== "finalized")) return null;
  return {
    slot: record.slot,
    blockTime: record.blockTimeSec,
    version,
    transaction: txJson(record, encoding),
    meta: metaJson(record, encoding),
  };
}

function accountsConfigOf(raw: unknown, tx: VersionedTransaction): { addresses: string[]; encoding: string } {
  const { addresses, encoding = "base64" } = configOf(raw) as { addresses?: unknown; encoding?: string };
  if (!Array.isArray(addresses)) throw rpcError(-32602, "Invalid params: accounts.addresses must be an array");
  if (encoding === "binary" || encoding === "base58")
    throw rpcError(-32602, "Invalid params: base58 encoding not supported");
  if (encoding !== "base64" && encoding !== "base64+zstd" && encoding !== "jsonParsed")
    throw rpcError(-32602, `Invalid params: unknown variant \`${encoding}\``);
  const max =
    tx.message.staticAccountKeys.length +
    tx.message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  if (addresses.length > max) throw rpcError(-32602, `Too many accounts provided; max ${max}`);
  return { addresses: addresses.map(addressParam), encoding };
}
