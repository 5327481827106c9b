/**
 * A complete bonding curve written directly (until pump's create/buy are emulated): pump's Global
 * (if absent), a Token-2022 mint of pump's supply, the curve with mainnet's completion reserves and
 * its token account holding the tokens left for migration.
 */
import { BN } from "@coral-xyz/anchor";
import { AccountLayout, getAssociatedTokenAddressSync, MintLayout, TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { bondingCurvePda, GLOBAL_PDA } from "@pump-fun/pump-sdk";
import { LocalNode } from "../../src/node";
import { pumpPrograms } from "../../src/native/pump";
import { pumpCodecs } from "../../src/native/anchor";
import { PUMP_PROGRAM_ID } from "../../src/native/pump/pump-amm-genesis";

export const WITHDRAW_AUTHORITY = new PublicKey("39azUYFWPz3VHgKCf3VChUwbpURdCHRxjWVowf5jUJjg");
export const POOL_MIGRATION_FEE = 15_000_001n;
const TOKEN_TOTAL_SUPPLY = 1_000_000_000_000_000n;
/** What a complete curve holds on mainnet: 793.1M of 1B tokens sold, ~85 SOL raised. */
export const TOKENS_FOR_MIGRATION = 206_900_000_000_000n;
export const REAL_SOL_RESERVES = 85_005_359_457n;

const keys = (n: number, k: PublicKey) => Array.from({ length: n }, () => k);

function writePumpGlobal(node: LocalNode): void {
  if (node.getAccount(GLOBAL_PDA)) return;
  const { pump } = pumpCodecs();
  const admin = new PublicKey("FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF");
  const data = pump.encodeAccount("Global", {
    initialized: true,
    authority: admin,
    feeRecipient: new PublicKey("62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV"),
    initialVirtualTokenReserves: new BN("1073000000000000"),
    initialVirtualSolReserves: new BN("30000000000"),
    initialRealTokenReserves: new BN("793100000000000"),
    tokenTotalSupply: new BN(TOKEN_TOTAL_SUPPLY.toString()),
    feeBasisPoints: new BN(95),
    withdrawAuthority: WITHDRAW_AUTHORITY,
    enableMigrate: true,
    poolMigrationFee: new BN(POOL_MIGRATION_FEE.toString()),
    creatorFeeBasisPoints: new BN(30),
    feeRecipients: keys(7, admin),
    setCreatorAuthority: admin,
    adminSetCreatorAuthority: admin,
    createV2Enabled: true,
    whitelistPda: PublicKey.default,
    reservedFeeRecipient: admin,
    mayhemModeEnabled: false,
    reservedFeeRecipients: keys(7, admin),
    isCashbackEnabled: false,
    buybackFeeRecipients: keys(8, admin),
    buybackBasisPoints: new BN(0),
    initialVirtualQuoteReserves: new BN(0),
    whitelistedQuoteMints: keys(1, PublicKey.default),
    creatorFeeConfigurable: false,
    maxConfigurableCreatorFeeBps: new BN(0),
    holderRewardClaimAuthority: admin,
    isHolderRewardEnabled: false,
  });
  node.setAccount(GLOBAL_PDA, {
    lamports: node.minimumBalanceForRentExemption(data.length),
    owner: PUMP_PROGRAM_ID,
    executable: false,
    data,
  });
}

export interface CompleteCurve {
  mint: PublicKey;
  creator: PublicKey;
  bondingCurve: PublicKey;
  curveTokenAccount: PublicKey;
}

/** A Token-2022 coin whose curve has just completed (all real tokens bought). */
export function writeCompleteCurve(node: LocalNode, creator = Keypair.generate().publicKey): CompleteCurve {
  writePumpGlobal(node);
  const { pump } = pumpCodecs();
  const mint = Keypair.generate().publicKey;
  const mintData = Buffer.alloc(MintLayout.span);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply: TOKEN_TOTAL_SUPPLY,
      decimals: 6,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    mintData,
  );
  node.setAccount(mint, {
    lamports: node.minimumBalanceForRentExemption(mintData.length),
    owner: TOKEN_2022_PROGRAM_ID,
    executable: false,
    data: mintData,
  });
  const bondingCurve = bondingCurvePda(mint);
  const curveData = pump.encodeAccount("BondingCurve", {
    virtualTokenReserves: new BN("279900000000000"),
    virtualQuoteReserves: new BN((30_000_000_000n + REAL_SOL_RESERVES).toString()),
    realTokenReserves: new BN(0),
    realQuoteReserves: new BN(REAL_SOL_RESERVES.toString()),
    tokenTotalSupply: new BN(TOKEN_TOTAL_SUPPLY.toString()),
    complete: true,
    creator,
    isMayhemMode: false,
    isCashbackCoin: false,
    quoteMint: PublicKey.default,
    creatorFeeBps: new BN(0),
    canEditCreatorFee: false,
    isHolderReward: false,
  });
  node.setAccount(bondingCurve, {
    lamports: node.minimumBalanceForRentExemption(curveData.length) + REAL_SOL_RESERVES,
    owner: PUMP_PROGRAM_ID,
    executable: false,
    data: curveData,
  });
  const curveTokenAccount = getAssociatedTokenAddressSync(mint, bondingCurve, true, TOKEN_2022_PROGRAM_ID);
  const tokenData = Buffer.alloc(AccountLayout.span);
  AccountLayout.encode(
    {
      mint,
      owner: bondingCurve,
      amount: TOKENS_FOR_MIGRATION,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    tokenData,
  );
  node.setAccount(curveTokenAccount, {
    lamports: node.minimumBalanceForRentExemption(tokenData.length),
    owner: TOKEN_2022_PROGRAM_ID,
    executable: false,
    data: tokenData,
  });
  return { mint, creator, bondingCurve, curveTokenAccount };
}

/**
 * A node hosting pump's three programs. pump's own genesis (another file, being written) is taken
 * when it builds; until then the test writes pump's Global itself (writePumpGlobal).
 */
export function ammNode(): LocalNode {
  const programs = pumpPrograms().map((p) => ({
    ...p,
    process: p.process.bind(p),
    genesisAccounts: () => {
      try {
        return p.genesisAccounts();
      } catch {
        return [];
      }
    },
  }));
  return new LocalNode({
    slotMs: 0,
    program: { creatorFeeBps: 100, bondThresholdLamports: 85_000_000_000n },
    nativePrograms: programs,
  });
}
