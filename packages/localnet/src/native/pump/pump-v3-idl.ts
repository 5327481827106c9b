/**
 * pump's announced next version ("v3"), as its docs describe it: pump-public-docs @2293f9a, its
 * instruction pages TRADE_V3 and SWEEP_FEES and its pump IDL
 * (the SDK they cite, pump-sdk 4.0.0, is not on npm). What pump-sdk 2.0.0's IDL lacks is added to
 * it here, transcribed from that IDL: the `buy_v3` / `sell_v3` and `sweep_creator_fee` /
 * `sweep_protocol_fee` account lists and discriminators (each equal to Anchor's
 * sha256("global:<name>")[..8]), `TradeEvent.creator_fee_unclaimed`, `SweepBondingCurveFeeEvent`
 * (discriminator: Anchor's sha256("event:SweepBondingCurveFeeEvent")[..8]), errors 6094 / 6095,
 * and where the fields appended to `BondingCurve` sit.
 */
import { AnchorProvider, type Idl, Program } from "@coral-xyz/anchor";
import { Connection, PublicKey } from "@solana/web3.js";
import { IdlCodec, pumpCodecs } from "../anchor";
import { PUMP_FEES_ID, PUMP_ID, SYSTEM_ID } from "./pump-accounts";

const ATA_PROGRAM_ID = new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

/**
 * `BondingCurve` in the 2293f9a IDL: after `is_holder_reward` (byte 124) come `creator_fee` u64,
 * `protocol_fees` u64, `depth` u8, `initial_virtual_quote_reserves` u64, `post_complete_base_out`
 * u64, `post_complete_quote_in` u64: 166 bytes with the discriminator. The program's allocation
 * for it is not published; 166 is the least that holds them.
 */
export const CURVE_V3 = { creatorFeeAt: 125, protocolFeesAt: 133, size: 166 } as const;

const hex = (h: string) => [...Buffer.from(h, "hex")];
const constSeed = (s: string) => ({ kind: "const", value: [...Buffer.from(s)] });
const accountSeed = (path: string) => ({ kind: "account", path });
const ataOf = (owner: string, tokenProgram: string, mint: string) => ({
  seeds: [accountSeed(owner), accountSeed(tokenProgram), accountSeed(mint)],
  program: { kind: "const", value: [...ATA_PROGRAM_ID.toBytes()] },
});
const globalAccount = { name: "global", pda: { seeds: [constSeed("global")] } };
const eventAuthority = { name: "eventAuthority", pda: { seeds: [constSeed("__event_authority")] } };
const bondingCurve = {
  name: "bondingCurve",
  writable: true,
  pda: { seeds: [constSeed("bonding-curve"), accountSeed("baseMint")] },
};

/** TRADE_V3.md "Accounts": the 17 accounts `buy_v3`, `buy_exact_quote_in_v3` and `sell_v3` share. */
const TRADE_V3_ACCOUNTS = [
  globalAccount,
  { name: "baseMint" },
  { name: "quoteMint" },
  { name: "baseTokenProgram" },
  { name: "quoteTokenProgram" },
  bondingCurve,
  { name: "associatedBaseBondingCurve", writable: true, pda: ataOf("bondingCurve", "baseTokenProgram", "baseMint") },
  { name: "associatedQuoteBondingCurve", writable: true, pda: ataOf("bondingCurve", "quoteTokenProgram", "quoteMint") },
  { name: "user", writable: true, signer: true },
  { name: "associatedBaseUser", writable: true },
  { name: "associatedQuoteUser", writable: true },
  {
    name: "userVolumeAccumulator",
    writable: true,
    pda: { seeds: [constSeed("user_volume_accumulator"), accountSeed("user")] },
  },
  {
    name: "feeConfig",
    pda: {
      seeds: [constSeed("fee_config"), { kind: "const", value: [...PUMP_ID.toBytes()] }],
      program: { kind: "const", value: [...PUMP_FEES_ID.toBytes()] },
    },
  },
  { name: "buybackFeeRecipient", writable: true },
  { name: "systemProgram", address: SYSTEM_ID.toBase58() },
  eventAuthority,
  { name: "program", address: PUMP_ID.toBase58() },
];

/** SWEEP_FEES.md "Pump sweep_protocol_fee and sweep_creator_fee": the 13 accounts both take. */
const SWEEP_ACCOUNTS = [
  { name: "payer", writable: true, signer: true },
  globalAccount,
  { name: "baseMint" },
  { name: "quoteMint" },
  { name: "quoteTokenProgram" },
  { name: "associatedTokenProgram", address: ATA_PROGRAM_ID.toBase58() },
  { name: "systemProgram", address: SYSTEM_ID.toBase58() },
  bondingCurve,
  { name: "associatedQuoteBondingCurve", writable: true, pda: ataOf("bondingCurve", "quoteTokenProgram", "quoteMint") },
  { name: "recipient", writable: true },
  { name: "associatedQuoteRecipient", writable: true, pda: ataOf("recipient", "quoteTokenProgram", "quoteMint") },
  eventAuthority,
  { name: "program" },
];

const u64 = (name: string) => ({ name, type: "u64" });
const partialFill = { name: "partialFill", type: { defined: { name: "optionBool" } } };

export const V3_INSTRUCTIONS = [
  {
    name: "buyV3",
    discriminator: hex("07051dc4f5176550"),
    accounts: TRADE_V3_ACCOUNTS,
    args: [u64("amount"), u64("maxSolCost"), partialFill],
  },
  {
    name: "sellV3",
    discriminator: hex("1c92de7726c469d5"),
    accounts: TRADE_V3_ACCOUNTS,
    args: [u64("amount"), u64("minSolOutput")],
  },
  { name: "sweepCreatorFee", discriminator: hex("20f6bf3408c949ba"), accounts: SWEEP_ACCOUNTS, args: [] },
  { name: "sweepProtocolFee", discriminator: hex("0830be07b644b7e5"), accounts: SWEEP_ACCOUNTS, args: [] },
] as const;

const SWEEP_EVENT_FIELDS = [
  { name: "timestamp", type: "i64" },
  { name: "mint", type: "pubkey" },
  { name: "bondingCurve", type: "pubkey" },
  { name: "quoteMint", type: "pubkey" },
  { name: "recipient", type: "pubkey" },
  u64("amount"),
  { name: "bucket", type: "u8" },
];

interface MutableIdl {
  instructions: unknown[];
  events: { name: string; discriminator: number[] }[];
  errors: { code: number; name: string; msg: string }[];
  types: { name: string; type: { kind: string; fields: unknown[] } }[];
}

function v3Idl(): Idl {
  const idl = structuredClone(pumpCodecs().pump.idl) as unknown as MutableIdl;
  idl.instructions.push(...structuredClone(V3_INSTRUCTIONS));
  idl.events.push({ name: "sweepBondingCurveFeeEvent", discriminator: hex("742b4dbd117a482b") });
  idl.types.push({ name: "sweepBondingCurveFeeEvent", type: { kind: "struct", fields: SWEEP_EVENT_FIELDS } });
  const trade = idl.types.find((t) => t.name === "tradeEvent");
  if (!trade) throw new Error("pump's IDL has no TradeEvent");
  trade.type.fields.push(u64("creatorFeeUnclaimed"));
  idl.errors.push(
    { code: 6094, name: "cashbackCoinNotSupported", msg: "v3 trades do not support cashback coins" },
    { code: 6095, name: "creatorFeesNotSwept", msg: "Creator fees kept on the bonding curve must be swept first" },
  );
  return idl as unknown as Idl;
}

let codec: IdlCodec | null = null;

/** pump's IDL with the v3 additions, as a coder (built once). */
export function v3Codec(): IdlCodec {
  codec ??= new IdlCodec(
    new Program(v3Idl(), new AnchorProvider(new Connection("http://127.0.0.1:1"), null as never, {})),
  );
  return codec;
}
