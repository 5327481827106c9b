/**
 * The accounts pump's bonding curve reads before any coin exists, as mainnet has them: `Global`,
 * pump_fees' `FeeConfig` for pump, the `GlobalVolumeAccumulator`, and the fee recipients the
 * trades pay (system accounts that exist on mainnet; a payment into an absent one below the
 * rent-exempt minimum would fail).
 *
 * Values: reserves, supply and recipients are pump's published ones (SDK `bondingCurve.ts`, docs
 * `FEE_RECIPIENTS.md`); the fee tiers are the live pump-amm `FeeConfig` fixture's
 * (pump-swap-sdk `__tests__/feeConfigMainnetFixture.ts`) with the bonding curve's first tier
 * (0.95 % protocol, 0.30 % creator, no LP fee: every curve trades below the 420 SOL threshold).
 */
import { PublicKey } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { pumpCodecs } from "../anchor";
import type { NativeAccount } from "../runtime";
import { PUMP_FEES_ID, PUMP_ID, pumpPda, SYSTEM_ID } from "./pump-accounts";
import { findProgramAddress } from "../pda";

const keys = (list: readonly string[]) => list.map((k) => new PublicKey(k));

const FEE_RECIPIENTS = keys([
  "62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV",
  "7VtfL8fvgNfhz17qKRMjzQEXgbdpnHHHQRh54R9jP2RJ",
  "7hTckgnGnLQR6sdH7YkqFTAA7VwTfYFaZ6EhEsU3saCX",
  "9rPYyANsfQZw3DnDmKE3YCQF5E8oD89UXoHn9JFEhJUz",
  "AVmoTthdrX6tKt4nDjco2D775W2YK3sDhxPcMmzUAmTY",
  "CebN5WGQ4jvEPvsVU4EoHEpgzq1VV7AbicfhtW4xC9iM",
  "FWsW1xNtWscwNmKv6wVsU1iTzRN6wmmk3MjxRP5tT7hz",
  "G5UZAVbAf46s7cKWoyKu8kYTip9DGTpbLZ2qa9Aq69dP",
]);

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

/** pump's admin (also pump_fees' FeeConfig admin in the mainnet fixture). */
const AUTHORITY = new PublicKey("FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF");
const WITHDRAW_AUTHORITY = new PublicKey("39azUYFWPz3VHgKCf3VChUwbpURdCHRxjWVowf5jUJjg");
const PUMP_TOKEN_MINT = new PublicKey("pumpCmXqMfrsAkQ5r49WcJnRayYRqmXz6ae8H7H9Dfn");

/**
 * The share of the protocol fee a trade pays to the buyback recipient (half since the buyback
 * programme started; DefiLlama's pump adapter: "buyback_fee ≈ 50% of pump_fee"). It is carved
 * out of the protocol fee, so what a trader pays is the SDK's quote either way.
 */
const BUYBACK_BASIS_POINTS = 5_000n;

/** pump `Global::SIZE` with every field the IDL declares (pump-sdk `GLOBAL_SIZE`). */
const GLOBAL_SIZE = 1087;
/** pump_fees `FeeConfig::CURRENT_SIZE` (pump-sdk `FEE_CONFIG_CURRENT_SIZE`). */
const FEE_CONFIG_SIZE = 4097;
/** pump `GlobalVolumeAccumulator`: discriminator, three i64, a key, two [u64; 30]. */
const GLOBAL_VOLUME_ACCUMULATOR_SIZE = 8 + 24 + 32 + 480;

const bn = (v: bigint | number) => new BN(v.toString());

function globalValue(): Record<string, unknown> {
  return {
    initialized: true,
    authority: AUTHORITY,
    feeRecipient: FEE_RECIPIENTS[0],
    initialVirtualTokenReserves: bn(1_073_000_000_000_000n),
    initialVirtualSolReserves: bn(30_000_000_000n),
    initialRealTokenReserves: bn(793_100_000_000_000n),
    tokenTotalSupply: bn(1_000_000_000_000_000n),
    feeBasisPoints: bn(95),
    withdrawAuthority: WITHDRAW_AUTHORITY,
    enableMigrate: true,
    poolMigrationFee: bn(15_000_001),
    creatorFeeBasisPoints: bn(30),
    feeRecipients: FEE_RECIPIENTS.slice(1),
    setCreatorAuthority: AUTHORITY,
    adminSetCreatorAuthority: AUTHORITY,
    createV2Enabled: true,
    whitelistPda: PublicKey.default,
    reservedFeeRecipient: RESERVED_FEE_RECIPIENTS[0],
    mayhemModeEnabled: false,
    reservedFeeRecipients: RESERVED_FEE_RECIPIENTS.slice(1),
    isCashbackEnabled: false,
    buybackFeeRecipients: BUYBACK_FEE_RECIPIENTS,
    buybackBasisPoints: bn(BUYBACK_BASIS_POINTS),
    initialVirtualQuoteReserves: bn(0),
    whitelistedQuoteMints: [PublicKey.default],
    creatorFeeConfigurable: false,
    maxConfigurableCreatorFeeBps: bn(0),
    holderRewardClaimAuthority: PublicKey.default,
    isHolderRewardEnabled: false,
  };
}

/** [threshold, lp, protocol, creator] per tier: the mainnet fixture's, first tier the curve's. */
const SOL_TIERS: readonly (readonly [bigint, number, number, number])[] = [
  [0n, 0, 95, 30],
  ...(
    [
      [420, 95],
      [1470, 90],
      [2460, 85],
      [3440, 80],
      [4420, 75],
      [9820, 70],
      [14740, 65],
      [19650, 60],
      [24560, 55],
      [29470, 50],
      [34380, 45],
      [39300, 40],
      [44210, 35],
      [49120, 30],
      [54030, 28],
      [58940, 25],
      [63860, 23],
      [68770, 20],
      [73681, 18],
      [78590, 15],
      [83500, 13],
      [88400, 10],
      [93330, 8],
      [98240, 5],
    ] as const
  ).map(([sol, creator]) => [BigInt(sol) * 1_000_000_000n, 20, 5, creator] as const),
];

function fees(lp: number, protocol: number, creator: number) {
  return { lpFeeBps: bn(lp), protocolFeeBps: bn(protocol), creatorFeeBps: bn(creator) };
}

function feeConfigValue(): Record<string, unknown> {
  const tiers = SOL_TIERS.map(([threshold, lp, protocol, creator]) => ({
    marketCapLamportsThreshold: bn(threshold),
    fees: fees(lp, protocol, creator),
  }));
  return {
    bump: findProgramAddress([Buffer.from("fee_config"), PUMP_ID.toBuffer()], PUMP_FEES_ID)[1],
    admin: AUTHORITY,
    flatFees: fees(0, 95, 30),
    feeTiers: tiers,
    // Stable (USDC) tiers and exotic flat fees apply to token-quoted curves, which the local
    // chain does not create: the SOL schedule stands in for them.
    stableFeeTiers: tiers,
    exoticFlatFees: fees(0, 95, 30),
  };
}

function globalVolumeAccumulatorValue(): Record<string, unknown> {
  const zeros = Array.from({ length: 30 }, () => bn(0));
  // No incentive period running: start and end at 0, as between pump's PUMP-token seasons.
  return {
    startTime: bn(0),
    endTime: bn(0),
    secondsInADay: bn(86_400),
    mint: PUMP_TOKEN_MINT,
    totalTokenSupply: zeros,
    solVolumes: zeros,
  };
}

/** Agave's rent-exempt minimum (default rent: 3,480 lamports per byte-year, two years, 128 bytes of overhead). */
function rentExempt(dataLen: number): bigint {
  return BigInt(128 + dataLen) * 6_960n;
}

export function curveGenesisAccounts(): { address: PublicKey; account: NativeAccount }[] {
  const { pump } = pumpCodecs();
  const owned = (owner: PublicKey, data: Uint8Array): NativeAccount => ({
    lamports: rentExempt(data.length),
    owner,
    executable: false,
    data,
  });
  const recipients = [...FEE_RECIPIENTS, ...RESERVED_FEE_RECIPIENTS, ...BUYBACK_FEE_RECIPIENTS].map((address) => ({
    address,
    account: owned(SYSTEM_ID, new Uint8Array(0)),
  }));
  return [
    {
      address: pumpPda.global().address,
      account: owned(PUMP_ID, pump.encodeAccount("Global", globalValue(), GLOBAL_SIZE)),
    },
    {
      address: pumpPda.feeConfig().address,
      account: owned(PUMP_FEES_ID, pump.encodeAccount("FeeConfig", feeConfigValue(), FEE_CONFIG_SIZE)),
    },
    {
      address: pumpPda.globalVolumeAccumulator().address,
      account: owned(
        PUMP_ID,
        pump.encodeAccount("GlobalVolumeAccumulator", globalVolumeAccumulatorValue(), GLOBAL_VOLUME_ACCUMULATOR_SIZE),
      ),
    },
    ...recipients,
  ];
}
