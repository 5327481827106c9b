/**
 * The node's side of the native programs: which transactions they run, their execution and
 * simulation with the fee and signatures a validator applies, and their accounts at genesis.
 */
import { createPublicKey, type KeyObject, verify as verifySignature } from "node:crypto";
import type { LiteSVM } from "litesvm";
import type { PublicKey, VersionedTransaction } from "@solana/web3.js";
import type { SolanaTxError } from "../errors";
import { deployUpgradeable, type UpgradeableNode } from "../upgradeable";
import { type InnerRecord, type NativeProgram, runNativeTransaction } from "./runtime";
import { type SvmHostNode, svmHost } from "./svm-host";

interface NativeCompiledIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

export interface NativeExecution {
  err: SolanaTxError | null;
  logs: string[];
  inner: { index: number; instructions: NativeCompiledIx[] }[];
  computeUnits: bigint;
  returnData: { programId: PublicKey; data: Uint8Array } | null;
}

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export class NativePrograms {
  private readonly byId: Map<string, NativeProgram>;

  constructor(
    programs: readonly NativeProgram[],
    private readonly svm: LiteSVM,
    private readonly node: SvmHostNode,
  ) {
    this.byId = new Map(programs.map((p) => [p.programId.toBase58(), p]));
  }

  get size(): number {
    return this.byId.size;
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** True when a top-level instruction of `tx` is a native program's (its CPIs are found as it runs). */
  names(tx: VersionedTransaction, keys: readonly PublicKey[]): boolean {
    if (this.byId.size === 0) return false;
    return tx.message.compiledInstructions.some((ix) => this.byId.has(keys[ix.programIdIndex]?.toBase58() ?? ""));
  }

  /**
   * Program accounts (upgradeable, as on mainnet) and each program's genesis accounts, where absent:
   * a chain continued from a state saved before a program was hosted gains it, and keeps whatever
   * it already holds at those addresses.
   */
  install(node: UpgradeableNode, upgradeAuthority: PublicKey): void {
    for (const program of this.byId.values()) {
      deployUpgradeable(node, program.programId, upgradeAuthority);
      for (const { address, account } of program.genesisAccounts())
        if (!node.getAccount(address)) node.setAccount(address, account);
    }
  }

  /**
   * Executes `tx` (keys static then loaded; `writable` per key). The fee is charged first and stays
   * charged; null when the payer cannot pay it or a signature does not verify (not landed).
   */
  execute(
    tx: VersionedTransaction,
    keys: readonly PublicKey[],
    writable: readonly boolean[],
    feeLamports: bigint,
    computeUnitLimit: bigint,
    checkSignatures: boolean,
  ): NativeExecution | { notLanded: SolanaTxError } {
    if (checkSignatures && !signaturesValid(tx)) return { notLanded: "SignatureFailure" };
    const payer = keys[0]!;
    const payerAccount = this.node.getAccount(payer);
    if (!payerAccount || payerAccount.lamports < feeLamports) return { notLanded: "InsufficientFundsForFee" };
    this.node.setAccount(payer, { ...payerAccount, lamports: payerAccount.lamports - feeLamports });
    const signerCount = tx.message.header.numRequiredSignatures;
    const r = runNativeTransaction(svmHost(this.svm, this.node), this.byId, {
      keys,
      writable,
      signer: keys.map((_, i) => i < signerCount),
      instructions: tx.message.compiledInstructions.map((ix) => ({
        programIndex: ix.programIdIndex,
        accountIndexes: ix.accountKeyIndexes,
        data: ix.data,
      })),
      computeUnitLimit,
    });
    return {
      err: r.err,
      logs: r.logs,
      inner: compileInner(r.inner, keys),
      computeUnits: r.computeUnits,
      returnData: r.returnData,
    };
  }

  /**
   * Runs `tx` and puts every account it names back as it was: what it would do, with the accounts
   * as they would be after it (`after`, read before they are put back).
   */
  simulate(
    tx: VersionedTransaction,
    keys: readonly PublicKey[],
    writable: readonly boolean[],
    feeLamports: bigint,
    computeUnitLimit: bigint,
    checkSignatures: boolean,
    after?: (key: PublicKey) => void,
  ): NativeExecution | { notLanded: SolanaTxError } {
    const saved = keys.map((k) => ({ key: k, account: this.node.getAccount(k) }));
    try {
      const r = this.execute(tx, keys, writable, feeLamports, computeUnitLimit, checkSignatures);
      if (after) for (const k of keys) after(k);
      return r;
    } finally {
      for (const { key, account } of saved.reverse()) svmHost(this.svm, this.node).setAccount(key, account);
    }
  }
}

function compileInner(inner: InnerRecord[][], keys: readonly PublicKey[]): NativeExecution["inner"] {
  const indexOf = new Map(keys.map((k, i) => [k.toBase58(), i]));
  const at = (k: PublicKey): number => {
    const i = indexOf.get(k.toBase58());
    if (i === undefined) throw new Error(`inner instruction names ${k.toBase58()}, which the transaction does not`);
    return i;
  };
  const out: NativeExecution["inner"] = [];
  inner.forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((ii) => ({
        programIdIndex: at(ii.programId),
        accounts: ii.accounts.map(at),
        data: ii.data,
        stackHeight: ii.stackHeight,
      })),
    });
  });
  return out;
}

/** Parsed public keys, reused: parsing costs more than verifying. Bounded, cleared when full. */
const verifyingKeys = new Map<string, KeyObject>();
const VERIFYING_KEYS_MAX = 50_000;

function verifyingKey(address: PublicKey): KeyObject {
  const id = address.toBase58();
  let key = verifyingKeys.get(id);
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, address.toBuffer()]),
      format: "der",
      type: "spki",
    });
    if (verifyingKeys.size >= VERIFYING_KEYS_MAX) verifyingKeys.clear();
    verifyingKeys.set(id, key);
  }
  return key;
}

/** Every required signature present and valid over the message (LiteSVM's sigverify, done here). */
function signaturesValid(tx: VersionedTransaction): boolean {
  const message = tx.message.serialize();
  const keys = tx.message.staticAccountKeys;
  for (let i = 0; i < tx.message.header.numRequiredSignatures; i++) {
    const sig = tx.signatures[i];
    if (!sig || sig.every((b) => b === 0)) return false;
    try {
      if (!verifySignature(null, message, verifyingKey(keys[i]!), sig)) return false;
    } catch {
      return false;
    }
  }
  return true;
}
