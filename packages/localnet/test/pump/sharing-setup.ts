/**
 * Coins for the fee-sharing tests, written straight into the node (a curve, and for a graduated
 * coin its canonical pool), as pump's create and migrate would have left them; and reading back
 * the events a transaction emitted, as an indexer reads them (self-CPI inner instructions).
 */
import { MintLayout, NATIVE_MINT, TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import {
  BONDING_CURVE_NEW_SIZE,
  bondingCurvePda,
  canonicalPumpPoolPda,
  creatorVaultPda,
  feeSharingConfigPda,
} from "@pump-fun/pump-sdk";
import { LocalNode, type TxRecord } from "../../src/node";
import { pumpCodecs } from "../../src/native/anchor";
import { pumpPrograms } from "../../src/native/pump";
import { ammSharingHandlers } from "../../src/native/pump/pump-fees-pool-creator";
import { EVENT_IX_TAG, type NativeProgram } from "../../src/native/runtime";

export const PUMP = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
export const PUMP_AMM = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
export const PUMP_FEES = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");
/** Rent-exempt minimum of a 0-byte account: what a creator vault keeps. */
export const VAULT_RENT = 890_880n;
const POOL_SPACE = 300;

/**
 * pump_amm with fee sharing's own instruction (migrate_pool_coin_creator) in front of its table,
 * until pump-amm.ts merges `ammSharingHandlers`; every other instruction goes to pump_amm as built.
 */
function ammWithSharing(amm: NativeProgram): NativeProgram {
  const codec = pumpCodecs().pumpAmm;
  const disc = codec.instructionDiscriminator("migratePoolCoinCreator");
  return {
    ...amm,
    process(ctx) {
      if (ctx.data.length >= 8 && disc.every((b, i) => ctx.data[i] === b)) {
        ctx.log("Instruction: MigratePoolCoinCreator");
        ammSharingHandlers.migratePoolCoinCreator!(ctx, {});
        return;
      }
      amm.process(ctx);
    },
  };
}

export function sharingNode(): LocalNode {
  const programs = pumpPrograms().map((p) => (p.programId.equals(PUMP_AMM) ? ammWithSharing(p) : p));
  return new LocalNode({
    slotMs: 0,
    program: { creatorFeeBps: 100, bondThresholdLamports: 85_000_000_000n },
    nativePrograms: programs,
  });
}

const bn = (v: bigint | number) => new BN(v.toString());

function rentExempt(node: LocalNode, len: number): bigint {
  return node.minimumBalanceForRentExemption(len);
}

export interface Coin {
  mint: PublicKey;
  creator: Keypair;
  bondingCurve: PublicKey;
  sharingConfig: PublicKey;
  /** the canonical pool, for a graduated coin */
  pool: PublicKey | null;
}

/**
 * A SOL-quoted coin as create_v2 leaves it (Token-2022 mint, 151-byte curve), its creator funded
 * with 10 SOL; `graduated`: its curve complete and its canonical pool made with the same creator.
 */
export function coin(node: LocalNode, o: { graduated?: boolean } = {}): Coin {
  const { pump, pumpAmm } = pumpCodecs();
  const creator = Keypair.generate();
  node.fund(creator.publicKey, 10_000_000_000n);
  const mint = Keypair.generate().publicKey;
  const mintData = Buffer.alloc(MintLayout.span);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply: 1_000_000_000_000_000n,
      decimals: 6,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    mintData,
  );
  node.setAccount(mint, {
    lamports: rentExempt(node, mintData.length),
    data: mintData,
    owner: TOKEN_2022_PROGRAM_ID,
    executable: false,
  });
  const bondingCurve = bondingCurvePda(mint);
  const graduated = o.graduated === true;
  const curve = pump.encodeAccount(
    "BondingCurve",
    {
      virtualTokenReserves: bn(graduated ? 0 : 1_073_000_000_000_000n),
      virtualQuoteReserves: bn(30_000_000_000n),
      realTokenReserves: bn(graduated ? 0 : 793_100_000_000_000n),
      realQuoteReserves: bn(0),
      tokenTotalSupply: bn(1_000_000_000_000_000n),
      complete: graduated,
      creator: creator.publicKey,
      isMayhemMode: false,
      isCashbackCoin: false,
      quoteMint: PublicKey.default,
      creatorFeeBps: bn(0),
      canEditCreatorFee: false,
      isHolderReward: false,
    },
    BONDING_CURVE_NEW_SIZE,
  );
  node.setAccount(bondingCurve, {
    lamports: rentExempt(node, curve.length),
    data: curve,
    owner: PUMP,
    executable: false,
  });
  let pool: PublicKey | null = null;
  if (graduated) {
    pool = canonicalPumpPoolPda(mint);
    const poolAuthority = PublicKey.findProgramAddressSync([Buffer.from("pool-authority"), mint.toBuffer()], PUMP)[0];
    const data = pumpAmm.encodeAccount(
      "Pool",
      {
        poolBump: PublicKey.findProgramAddressSync(
          [Buffer.from("pool"), Buffer.from([0, 0]), poolAuthority.toBuffer(), mint.toBuffer(), NATIVE_MINT.toBuffer()],
          PUMP_AMM,
        )[1],
        index: 0,
        creator: poolAuthority,
        baseMint: mint,
        quoteMint: NATIVE_MINT,
        lpMint: Keypair.generate().publicKey,
        poolBaseTokenAccount: Keypair.generate().publicKey,
        poolQuoteTokenAccount: Keypair.generate().publicKey,
        lpSupply: bn(4_193_388_321_396n),
        coinCreator: creator.publicKey,
        isMayhemMode: false,
        isCashbackCoin: false,
        virtualQuoteReserves: bn(0),
        creatorFeeBps: bn(0),
        canEditCreatorFee: false,
        isHolderReward: false,
      },
      POOL_SPACE,
    );
    node.setAccount(pool, { lamports: rentExempt(node, POOL_SPACE), data, owner: PUMP_AMM, executable: false });
  }
  return { mint, creator, bondingCurve, sharingConfig: feeSharingConfigPda(mint), pool };
}

/** Fees accrued to the sharing config's curve vault: it holds its rent plus `feesLamports`. */
export function accrue(node: LocalNode, sharingConfig: PublicKey, feesLamports: bigint): PublicKey {
  const vault = creatorVaultPda(sharingConfig);
  const now = node.getBalance(vault);
  node.setAccount(vault, {
    lamports: (now === 0n ? VAULT_RENT : now) + feesLamports,
    data: new Uint8Array(0),
    owner: SystemProgram.programId,
    executable: false,
  });
  return vault;
}

/** A wallet that exists (System account holding 0.01 SOL). */
export function wallet(node: LocalNode): PublicKey {
  const k = Keypair.generate().publicKey;
  node.fund(k, 10_000_000n);
  return k;
}

/** Event bodies (discriminator stripped) `program` emitted in `record`, by IDL event name. */
export function events(record: TxRecord, program: PublicKey, name: string): Buffer[] {
  const codec = program.equals(PUMP)
    ? pumpCodecs().pump
    : program.equals(PUMP_AMM)
      ? pumpCodecs().pumpAmm
      : pumpCodecs().pumpFees;
  const idl = codec.idl as unknown as { events: { name: string; discriminator: number[] }[] };
  const camel = name.charAt(0).toLowerCase() + name.slice(1);
  const disc = idl.events.find((e) => e.name === camel)!.discriminator;
  const out: Buffer[] = [];
  for (const group of record.innerInstructions) {
    for (const ix of group.instructions) {
      if (!record.accountKeys[ix.programIdIndex]!.equals(program)) continue;
      const data = Buffer.from(ix.data);
      if (!data.subarray(0, 8).equals(Buffer.from(EVENT_IX_TAG))) continue;
      if (!data.subarray(8, 16).equals(Buffer.from(disc))) continue;
      out.push(data.subarray(16));
    }
  }
  return out;
}
