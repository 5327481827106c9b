/**
 * pump_amm's accounts as mainnet has them before any pool exists: its GlobalConfig, the FeeConfig
 * pump_fees keeps for it, and the AMM's GlobalVolumeAccumulator. Values are mainnet's as the
 * public docs (PUMP_SWAP_README.md, FEE_RECIPIENTS.md) and pump-swap-sdk's mainnet FeeConfig
 * fixture (`__tests__/feeConfigMainnetFixture.ts`, captured at slot 445186127) record them.
 */
import { BN } from "@coral-xyz/anchor";
import { MintLayout, NATIVE_MINT, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import { pumpCodecs } from "../anchor";
import type { NativeAccount } from "../runtime";
import { findProgramAddress } from "../pda";

export const PUMP_PROGRAM_ID = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
export const PUMP_AMM_PROGRAM_ID = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
export const PUMP_FEES_PROGRAM_ID = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");

function ammPda(seeds: readonly Uint8Array[]): [PublicKey, number] {
  return findProgramAddress(
    seeds.map((s) => Buffer.from(s)),
    PUMP_AMM_PROGRAM_ID,
  );
}

export const GLOBAL_CONFIG = ammPda([Buffer.from("global_config")])[0];
const GLOBAL_VOLUME_ACCUMULATOR = ammPda([Buffer.from("global_volume_accumulator")])[0];
const AMM_FEE_CONFIG = findProgramAddress(
  [Buffer.from("fee_config"), PUMP_AMM_PROGRAM_ID.toBuffer()],
  PUMP_FEES_PROGRAM_ID,
)[0];

const keys = (list: readonly string[]): PublicKey[] => list.map((k) => new PublicKey(k));

/** pump_amm's admin (GlobalConfig.admin, FeeConfig.admin). */
const AMM_ADMIN = new PublicKey("FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF");
const PROTOCOL_FEE_RECIPIENTS = keys([
  "62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV",
  "7VtfL8fvgNfhz17qKRMjzQEXgbdpnHHHQRh54R9jP2RJ",
  "7hTckgnGnLQR6sdH7YkqFTAA7VwTfYFaZ6EhEsU3saCX",
  "9rPYyANsfQZw3DnDmKE3YCQF5E8oD89UXoHn9JFEhJUz",
  "AVmoTthdrX6tKt4nDjco2D775W2YK3sDhxPcMmzUAmTY",
  "FWsW1xNtWscwNmKv6wVsU1iTzRN6wmmk3MjxRP5tT7hz",
  "G5UZAVbAf46s7cKWoyKu8kYTip9DGTpbLZ2qa9Aq69dP",
  "JCRGumoE9Qi5BBgULTgdgTLjSgkCMSbF62ZZfGs84JeU",
]);
/** Mayhem-mode pools' protocol fee recipients (FEE_RECIPIENTS.md "Reserved"). */
const RESERVED_FEE_RECIPIENTS = keys([
  "GesfTA3X2arioaHp8bbKdjG9vJtskViWACZoYvxp4twS",
  "4budycTjhs9fD6xw62VBducVTNgMgJJ5BgtKq7mAZwn6",
  "8SBKzEQU4nLSzcwF4a74F2iaUDQyTfjGndn6qUWBnrpR",
  "4UQeTP1T39KZ9Sfxzo3WR5skgsaP6NZa87BAkuazLEKH",
  "8sNeir4QsLsJdYpc9RZacohhK1Y5FLU3nC5LXgYB4aa6",
  "Fh9HmeLNUMVCvejxCtCL2DbYaRyBFVJ5xrWkLnMH6fdk",
  "463MEnMeGyJekNZFQSTUABBEbLnvMTALbT6ZmsxAbAdq",
  "6AUH3WEHucYZyC61hqpqYUWVto5qA5hjHuNQ32GNnNxA",
]);
const BUYBACK_FEE_RECIPIENTS = keys([
  "5YxQFdt3Tr9zJLvkFccqXVUwhdTWJQc1fFg2YPbxvxeD",
  "9M4giFFMxmFGXtc3feFzRai56WbBqehoSeRE5GK7gf7",
  "GXPFM2caqTtQYC2cJ5yJRi9VDkpsYZXzYdwYpGnLmtDL",
  "3BpXnfJaUTiwXnJNe7Ej1rcbzqTTQUvLShZaWazebsVR",
  "5cjcW9wExnJJiqgLjq7DEG75Pm6JBgE1hNv4B2vHXUW6",
  "EHAAiTxcdDwQ3U4bU6YcMsQGaekdzLS3B5SmYo46kJtL",
  "5eHhjP8JaYkz83CWwvGU2uMUXefd3AazWGx4gpcuEEYD",
  "A7hAgCzFw14fejgCp387JUJRMNyz4j89JKnhtKU8piqW",
]);

/** The account sizes mainnet allocates (pump-swap-sdk GLOBAL_CONFIG_SIZE; the FeeConfig fixture is 4073 bytes). */
const GLOBAL_CONFIG_SPACE = 949;
const FEE_CONFIG_SPACE = 4073;

/**
 * SOL-quoted fee tiers [market cap threshold (lamports), lp, protocol, creator bps]: mainnet's,
 * from the SDK's fixture. The stable (USDC) tiers carry the same fees at USDC thresholds.
 */
const FEE_TIERS: readonly (readonly [string, number, number, number])[] = [
  ["0", 2, 93, 30],
  ["420000000000", 20, 5, 95],
  ["1470000000000", 20, 5, 90],
  ["2460000000000", 20, 5, 85],
  ["3440000000000", 20, 5, 80],
  ["4420000000000", 20, 5, 75],
  ["9820000000000", 20, 5, 70],
  ["14740000000000", 20, 5, 65],
  ["19650000000000", 20, 5, 60],
  ["24560000000000", 20, 5, 55],
  ["29470000000000", 20, 5, 50],
  ["34380000000000", 20, 5, 45],
  ["39300000000000", 20, 5, 40],
  ["44210000000000", 20, 5, 35],
  ["49120000000000", 20, 5, 30],
  ["54030000000000", 20, 5, 28],
  ["58940000000000", 20, 5, 25],
  ["63860000000000", 20, 5, 23],
  ["68770000000000", 20, 5, 20],
  ["73681000000000", 20, 5, 18],
  ["78590000000000", 20, 5, 15],
  ["83500000000000", 20, 5, 13],
  ["88400000000000", 20, 5, 10],
  ["93330000000000", 20, 5, 8],
  ["98240000000000", 20, 5, 5],
];
const STABLE_THRESHOLDS = [
  "0",
  "59000000000",
  "300000000000",
  "500000000000",
  "700000000000",
  "900000000000",
  "2000000000000",
  "3000000000000",
  "4000000000000",
  "5000000000000",
  "6000000000000",
  "7000000000000",
  "8000000000000",
  "9000000000000",
  "10000000000000",
  "11000000000000",
  "12000000000000",
  "13000000000000",
  "14000000000000",
  "15000000000000",
  "16000000000000",
  "17000000000000",
  "18000000000000",
  "19000000000000",
  "20000000000000",
];

const fees = (lp: number, protocol: number, creator: number) => ({
  lpFeeBps: new BN(lp),
  protocolFeeBps: new BN(protocol),
  creatorFeeBps: new BN(creator),
});

function globalConfigValue() {
  return {
    admin: AMM_ADMIN,
    lpFeeBasisPoints: new BN(20),
    protocolFeeBasisPoints: new BN(5),
    disableFlags: 0,
    protocolFeeRecipients: PROTOCOL_FEE_RECIPIENTS,
    coinCreatorFeeBasisPoints: new BN(5),
    adminSetCoinCreatorAuthority: AMM_ADMIN,
    whitelistPda: PublicKey.default,
    reservedFeeRecipient: RESERVED_FEE_RECIPIENTS[0]!,
    mayhemModeEnabled: true,
    reservedFeeRecipients: RESERVED_FEE_RECIPIENTS.slice(1),
    isCashbackEnabled: false,
    buybackFeeRecipients: BUYBACK_FEE_RECIPIENTS,
    // The SDK's quote math (buyBaseInput/sellBaseInput) charges no buyback fee: zero keeps the
    // emulation's charges equal to the SDK's quotes. Mainnet's figure is not published.
    buybackBasisPoints: new BN(0),
    boostAuthority: AMM_ADMIN,
    boostEnabled: false,
    creatorFeeConfigurable: false,
    maxConfigurableCreatorFeeBps: new BN(0),
  };
}

function feeConfigValue() {
  return {
    bump: findProgramAddress([Buffer.from("fee_config"), PUMP_AMM_PROGRAM_ID.toBuffer()], PUMP_FEES_PROGRAM_ID)[1],
    admin: AMM_ADMIN,
    flatFees: fees(25, 5, 0),
    feeTiers: FEE_TIERS.map(([t, lp, p, c]) => ({ marketCapLamportsThreshold: new BN(t), fees: fees(lp, p, c) })),
    stableFeeTiers: FEE_TIERS.map(([, lp, p, c], i) => ({
      marketCapLamportsThreshold: new BN(STABLE_THRESHOLDS[i]!),
      fees: fees(lp, p, c),
    })),
    exoticFlatFees: fees(0, 0, 0),
  };
}

function globalVolumeAccumulatorValue() {
  // No incentive period running: days all zero, the range ended before genesis.
  return {
    startTime: new BN(0),
    endTime: new BN(0),
    secondsInADay: new BN(86_400),
    mint: PublicKey.default,
    totalTokenSupply: Array.from({ length: 30 }, () => new BN(0)),
    solVolumes: Array.from({ length: 30 }, () => new BN(0)),
  };
}

type Rent = (len: number) => bigint;

function programAccount(owner: PublicKey, data: Uint8Array, rent: Rent): NativeAccount {
  return { lamports: rent(data.length), owner, executable: false, data };
}

export function ammGenesisAccounts(rent: Rent): { address: PublicKey; account: NativeAccount }[] {
  const { pumpAmm } = pumpCodecs();
  return [
    {
      address: GLOBAL_CONFIG,
      account: programAccount(
        PUMP_AMM_PROGRAM_ID,
        pumpAmm.encodeAccount("GlobalConfig", globalConfigValue(), GLOBAL_CONFIG_SPACE),
        rent,
      ),
    },
    {
      address: AMM_FEE_CONFIG,
      account: programAccount(PUMP_FEES_PROGRAM_ID, encodeFeeConfig(pumpAmm.accountDiscriminator("FeeConfig")), rent),
    },
    { address: NATIVE_MINT, account: nativeMint(rent) },
    {
      address: GLOBAL_VOLUME_ACCUMULATOR,
      account: programAccount(
        PUMP_AMM_PROGRAM_ID,
        pumpAmm.encodeAccount("GlobalVolumeAccumulator", globalVolumeAccumulatorValue()),
        rent,
      ),
    },
  ];
}

/**
 * The WSOL mint every pool's quote is: a fixture of every real cluster (SPL Token's native mint,
 * 9 decimals, no authority), absent from a bare LiteSVM.
 */
function nativeMint(rent: Rent): NativeAccount {
  const data = Buffer.alloc(MintLayout.span);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply: 0n,
      decimals: 9,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  return { lamports: rent(data.length), owner: TOKEN_PROGRAM_ID, executable: false, data };
}

/** Solana's rent-exempt minimum (default rent: 3,480 lamports per byte-year, 2 years, 128 bytes of overhead). */
export function rentExempt(len: number): bigint {
  return BigInt(len + 128) * 3_480n * 2n;
}

/**
 * FeeConfig's borsh bytes, written here because Anchor's type coder encodes into a 1,000-byte
 * buffer and the 50 tiers take 4,000: discriminator, bump, admin, flat fees, the two u32-prefixed
 * tier vectors (u128 threshold, three u64 rates), exotic flat fees; zero-padded to mainnet's size.
 */
function encodeFeeConfig(discriminator: Uint8Array): Uint8Array {
  const v = feeConfigValue();
  const out = Buffer.alloc(FEE_CONFIG_SPACE);
  let o = 0;
  out.set(discriminator, o);
  o += 8;
  out[o++] = v.bump;
  out.set(v.admin.toBytes(), o);
  o += 32;
  const u64 = (n: BN) => {
    out.writeBigUInt64LE(BigInt(n.toString()), o);
    o += 8;
  };
  const feesOut = (f: ReturnType<typeof fees>) => {
    u64(f.lpFeeBps);
    u64(f.protocolFeeBps);
    u64(f.creatorFeeBps);
  };
  feesOut(v.flatFees);
  for (const tiers of [v.feeTiers, v.stableFeeTiers]) {
    out.writeUInt32LE(tiers.length, o);
    o += 4;
    for (const t of tiers) {
      const threshold = BigInt(t.marketCapLamportsThreshold.toString());
      out.writeBigUInt64LE(threshold & 0xffff_ffff_ffff_ffffn, o);
      out.writeBigUInt64LE(threshold >> 64n, o + 8);
      o += 16;
      feesOut(t.fees);
    }
  }
  feesOut(v.exoticFlatFees);
  return out;
}
