/** Test fixtures for chain decoding: IDL-encoded events, BondingCurve bytes, confirmed transactions. */
import { BN } from "@coral-xyz/anchor";
import { getPumpProgram, pumpIdl } from "@pump-fun/pump-sdk";
import { getPumpAmmProgram, pumpAmmJson } from "@pump-fun/pump-swap-sdk";
import { expect } from "bun:test";
import { Connection, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import type {
  AccountSnapshot,
  ChainReader,
  CompiledInstructionView,
  ConfirmedTransaction,
} from "../../../src/chain/ports";
import { DISC, PUMP_AMM_PROGRAM_ID, PUMP_PROGRAM_ID, pumpPdas } from "../../../src/chain/pump/layout";

// Only the programs' coders are used: the connection is never asked anything.
const unusedConnection = new Connection("http://127.0.0.1:9");
export const pumpProgram = getPumpProgram(unusedConnection);
export const ammProgram = getPumpAmmProgram(unusedConnection);

type Idl = {
  instructions: {
    name: string;
    discriminator: number[];
    accounts: { name: string; writable?: boolean; signer?: boolean; address?: string }[];
  }[];
  events: { name: string; discriminator: number[] }[];
  accounts: { name: string; discriminator: number[] }[];
};
export const PUMP_IDL = pumpIdl as unknown as Idl;
export const AMM_IDL = pumpAmmJson as unknown as Idl;

export const idlInstruction = (idl: Idl, name: string) => {
  const ix = idl.instructions.find((i) => i.name === name);
  if (!ix) throw new Error(`IDL has no ${name}`);
  return ix;
};
export const idlEventDisc = (idl: Idl, name: string) =>
  Uint8Array.from(idl.events.find((e) => e.name === name)!.discriminator);
export const idlAccountDisc = (idl: Idl, name: string) =>
  Uint8Array.from(idl.accounts.find((e) => e.name === name)!.discriminator);

/** `EVENT_IX_TAG ‖ disc ‖ body`, the data of an #[event_cpi] self-invocation. */
function eventCpiData(eventDisc: Uint8Array, body: Uint8Array): Uint8Array {
  return Uint8Array.from([...DISC.eventIxTag, ...eventDisc, ...body]);
}

function encodeCollectCreatorFeeEvent(creator: PublicKey, feeLamports: bigint, withQuoteMint = true): Uint8Array {
  const body = pumpProgram.coder.types.encode("collectCreatorFeeEvent", {
    timestamp: new BN(1_760_000_000),
    creator,
    creatorFee: new BN(feeLamports.toString()),
    quoteMint: PublicKey.default,
  });
  // Events emitted before the 2026-05 IDL end after creator_fee.
  return withQuoteMint ? new Uint8Array(body) : new Uint8Array(body.subarray(0, 8 + 32 + 8));
}

function encodeCollectCoinCreatorFeeEvent(creator: PublicKey, feeLamports: bigint): Uint8Array {
  return new Uint8Array(
    ammProgram.coder.types.encode("collectCoinCreatorFeeEvent", {
      timestamp: new BN(1_760_000_000),
      coinCreator: creator,
      coinCreatorFee: new BN(feeLamports.toString()),
      coinCreatorVaultAta: pumpPdas.ammCreatorVaultWsolAta(creator),
      coinCreatorTokenAccount: pumpPdas.creatorWsolAta(creator),
    }),
  );
}

export function curveEventIx(creator: PublicKey, feeLamports: bigint, withQuoteMint = true): CompiledInstructionView {
  return {
    programId: PUMP_PROGRAM_ID.toBase58(),
    accounts: [pumpPdas.eventAuthority().toBase58()],
    data: eventCpiData(
      idlEventDisc(PUMP_IDL, "CollectCreatorFeeEvent"),
      encodeCollectCreatorFeeEvent(creator, feeLamports, withQuoteMint),
    ),
  };
}

export function poolEventIx(creator: PublicKey, feeLamports: bigint): CompiledInstructionView {
  return {
    programId: PUMP_AMM_PROGRAM_ID.toBase58(),
    accounts: [pumpPdas.ammEventAuthority().toBase58()],
    data: eventCpiData(
      idlEventDisc(AMM_IDL, "CollectCoinCreatorFeeEvent"),
      encodeCollectCoinCreatorFeeEvent(creator, feeLamports),
    ),
  };
}

export function viewOf(ix: TransactionInstruction): CompiledInstructionView {
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => k.pubkey.toBase58()),
    data: new Uint8Array(ix.data),
  };
}

export function confirmedTx(
  parts: Partial<ConfirmedTransaction> & { balances?: Record<string, [bigint, bigint]> },
): ConfirmedTransaction {
  const keys = [...(parts.accountKeys ?? [])];
  const pre: bigint[] = [...(parts.preBalances ?? keys.map(() => 0n))];
  const post: bigint[] = [...(parts.postBalances ?? keys.map(() => 0n))];
  for (const [address, [before, after]] of Object.entries(parts.balances ?? {})) {
    keys.push(address);
    pre.push(before);
    post.push(after);
  }
  return {
    signature: parts.signature ?? "sig",
    slot: parts.slot ?? 100n,
    blockTime: parts.blockTime ?? new Date(1_760_000_000_000),
    err: parts.err ?? null,
    accountKeys: keys,
    preBalances: pre,
    postBalances: post,
    instructions: parts.instructions ?? [],
    innerInstructions: parts.innerInstructions ?? [],
    logMessages: parts.logMessages ?? [],
    preTokenBalances: parts.preTokenBalances,
    postTokenBalances: parts.postTokenBalances,
  };
}

/** BondingCurve bytes with every field of the 125-byte layout set, extended to 151 as `extend_account` does. */
export function bondingCurveBytes(fields: {
  complete: boolean;
  creator: PublicKey;
  virtualTokenReserves?: bigint;
  virtualQuoteReserves?: bigint;
  realTokenReserves?: bigint;
  tokenTotalSupply?: bigint;
  creatorFeeBps?: bigint;
  isMayhemMode?: boolean;
}): Uint8Array {
  const b = Buffer.alloc(151);
  Buffer.from(idlAccountDisc(PUMP_IDL, "BondingCurve")).copy(b, 0);
  b.writeBigUInt64LE(fields.virtualTokenReserves ?? 1_073_000_000_000_000n, 8);
  b.writeBigUInt64LE(fields.virtualQuoteReserves ?? 30_000_000_000n, 16);
  b.writeBigUInt64LE(fields.realTokenReserves ?? 793_100_000_000_000n, 24);
  b.writeBigUInt64LE(0n, 32);
  b.writeBigUInt64LE(fields.tokenTotalSupply ?? 1_000_000_000_000_000n, 40);
  b.writeUInt8(fields.complete ? 1 : 0, 48);
  fields.creator.toBuffer().copy(b, 49);
  b.writeUInt8(fields.isMayhemMode ? 1 : 0, 81);
  b.writeBigUInt64LE(fields.creatorFeeBps ?? 0n, 115);
  return new Uint8Array(b);
}

/** Pump Fees `SharingConfig` bytes as the program writes them (the golden test decodes them with the SDK too). */
export function sharingConfigBytes(
  mint: PublicKey,
  shareholders: { address: PublicKey; shareBps: number }[],
  active = true,
): Uint8Array {
  const b = Buffer.alloc(8 + 3 + 32 + 32 + 1 + 4 + 34 * shareholders.length);
  Buffer.from("d84a0900388c5d4b", "hex").copy(b, 0);
  b.writeUInt8(254, 8); // bump
  b.writeUInt8(1, 9); // version
  b.writeUInt8(active ? 1 : 0, 10); // ConfigStatus: 0 Paused, 1 Active
  mint.toBuffer().copy(b, 11);
  PublicKey.default.toBuffer().copy(b, 43); // admin
  b.writeUInt8(1, 75); // admin_revoked
  b.writeUInt32LE(shareholders.length, 76);
  shareholders.forEach((h, i) => {
    h.address.toBuffer().copy(b, 80 + 34 * i);
    b.writeUInt16LE(h.shareBps, 112 + 34 * i);
  });
  return new Uint8Array(b);
}

/** A canonical PumpSwap Pool (SOL quote) as the AMM's coder writes it. */
export function poolBytes(
  mint: PublicKey,
  coinCreator: PublicKey,
  poolBase: PublicKey,
  poolQuote: PublicKey,
): Uint8Array {
  const NATIVE = new PublicKey("So11111111111111111111111111111111111111112");
  return new Uint8Array(
    encodeAccountSync("pool", {
      poolBump: 255,
      index: 0,
      creator: pumpPdas.poolAuthority(mint),
      baseMint: mint,
      quoteMint: NATIVE,
      lpMint: PublicKey.unique(),
      poolBaseTokenAccount: poolBase,
      poolQuoteTokenAccount: poolQuote,
      lpSupply: new BN(1),
      coinCreator,
      isMayhemMode: false,
      isCashbackCoin: false,
      virtualQuoteReserves: new BN(0),
      creatorFeeBps: new BN(0),
      canEditCreatorFee: false,
    }),
  );
}

/** The AMM GlobalConfig with small fees and one protocol fee recipient. */
export function ammGlobalConfigBytes(): Uint8Array {
  const recipient = new PublicKey("62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV");
  return new Uint8Array(
    encodeAccountSync("globalConfig", {
      admin: PublicKey.default,
      lpFeeBasisPoints: new BN(20),
      protocolFeeBasisPoints: new BN(5),
      disableFlags: 0,
      protocolFeeRecipients: new Array(8).fill(recipient),
      coinCreatorFeeBasisPoints: new BN(5),
      adminSetCoinCreatorAuthority: PublicKey.default,
      whitelistPda: PublicKey.default,
      reservedFeeRecipient: recipient,
      mayhemModeEnabled: false,
      reservedFeeRecipients: new Array(7).fill(recipient),
      isCashbackEnabled: false,
      buybackFeeRecipients: new Array(8).fill(recipient),
      buybackBasisPoints: new BN(0),
      boostAuthority: PublicKey.default,
      boostEnabled: false,
      creatorFeeConfigurable: false,
      maxConfigurableCreatorFeeBps: new BN(0),
    }),
  );
}

/** Anchor's BorshAccountsCoder.encode is async in name only: the same layout encode, synchronously. */
function encodeAccountSync(name: string, value: unknown): Buffer {
  const coder = ammProgram.coder.accounts as unknown as {
    accountLayouts: Map<string, { layout: { encode(v: unknown, b: Buffer): number } }>;
    accountDiscriminator(name: string): Buffer;
  };
  const layout = coder.accountLayouts.get(name);
  if (!layout) throw new Error(`no layout for ${name}`);
  const buffer = Buffer.alloc(1_000);
  const len = layout.layout.encode(value, buffer);
  return Buffer.concat([coder.accountDiscriminator(name), buffer.subarray(0, len)]);
}

/** A ChainReader over an in-memory account map: what the adapter sees through any RPC. */
export function mapReader(
  accounts: Map<string, AccountSnapshot>,
  options: { simulateReturnData?: ChainReader["simulateReturnData"] } = {},
): ChainReader & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    ...(options.simulateReturnData ? { simulateReturnData: options.simulateReturnData } : {}),
    async getAccounts(addresses) {
      calls.push([...addresses]);
      return new Map(addresses.map((a) => [a, accounts.get(a) ?? null]));
    },
    async getBalances(addresses) {
      return new Map(addresses.map((a) => [a, accounts.get(a)?.lamports ?? 0n]));
    },
    async getTransaction() {
      return null;
    },
    async getSignatureStatuses(signatures) {
      return new Map(signatures.map((s) => [s, null]));
    },
    async getBlockHeight() {
      return 0n;
    },
    async getLatestBlockhash() {
      return { blockhash: new PublicKey(new Uint8Array(32).fill(9)).toBase58(), lastValidBlockHeight: 150n };
    },
  };
}

const hex = (b: Uint8Array | number[]) => Buffer.from(Uint8Array.from(b)).toString("hex");

export function sameInstruction(a: TransactionInstruction, b: TransactionInstruction) {
  expect(a.programId.toBase58()).toBe(b.programId.toBase58());
  expect(a.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable])).toEqual(
    b.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable]),
  );
  expect(hex(a.data)).toBe(hex(b.data));
}

/** Our accounts against the IDL's order, writability, signer flags and fixed addresses. */
export function matchesIdl(
  ix: TransactionInstruction,
  idlIx: ReturnType<typeof idlInstruction>,
  named: Record<string, PublicKey> = {},
) {
  expect(ix.keys.length).toBeGreaterThanOrEqual(idlIx.accounts.length);
  idlIx.accounts.forEach((acc, i) => {
    const key = ix.keys[i]!;
    expect([acc.name, key.isWritable, key.isSigner]).toEqual([acc.name, Boolean(acc.writable), Boolean(acc.signer)]);
    if (acc.address) expect([acc.name, key.pubkey.toBase58()]).toEqual([acc.name, acc.address]);
    if (named[acc.name]) expect([acc.name, key.pubkey.toBase58()]).toEqual([acc.name, named[acc.name]!.toBase58()]);
  });
  expect(hex(ix.data.subarray(0, 8))).toBe(hex(idlIx.discriminator));
}

/** What pump's `get_minimum_distributable_fee` view returns (`MinimumDistributableFeeEvent`), as simulation return data. */
export function minimumDistributableReturn(
  minimumRequiredLamports: bigint,
  distributableLamports: bigint,
): { programId: string; data: Uint8Array } {
  const b = Buffer.alloc(17);
  b.writeBigUInt64LE(minimumRequiredLamports, 0);
  b.writeBigUInt64LE(distributableLamports, 8);
  b.writeUInt8(distributableLamports >= minimumRequiredLamports ? 1 : 0, 16);
  return { programId: PUMP_PROGRAM_ID.toBase58(), data: new Uint8Array(b) };
}
