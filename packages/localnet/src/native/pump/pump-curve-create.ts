/**
 * pump's `create_v2`: a Token-2022 mint carrying its metadata (metadata pointer to itself, token
 * metadata in the mint), the bonding curve account, the curve's associated token account holding
 * the whole supply, the mint authority revoked, and the `CreateEvent`. Every token step is a CPI
 * into Token-2022 / the ATA program run in LiteSVM, signed by the `mint-authority` and
 * `bonding-curve` PDAs as pump signs them. Only SOL-quoted coins: a token quote (four remaining
 * accounts) is refused with `UnsupportedQuoteMint`.
 */
import {
  AuthorityType,
  createAssociatedTokenAccountInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSetAuthorityInstruction,
  ExtensionType,
  getMintLen,
} from "@solana/spl-token";
import { createHash } from "node:crypto";
import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import type { Global } from "@pump-fun/pump-sdk";
import type { InvokeContext } from "../runtime";
import { checkAccounts, loadAccount, pumpPda, TOKEN_2022_ID } from "./pump-accounts";
import { big, bn, codec } from "./pump-curve-state";
import { initAccount } from "./pump-curve-trade";
import { lamportsAsNumber } from "../../lamports";

/** Units create_v2's own work costs; its CPIs (mint, metadata, ATA, mint_to) are charged as they run. */
const CREATE_UNITS = 30_000;
/** pump `BondingCurve::NEW_SIZE` (pump-sdk `BONDING_CURVE_NEW_SIZE`): what new curves are allocated. */
const BONDING_CURVE_SPACE = 151;
const DECIMALS = 6;
const NAME_MAX = 32;
const SYMBOL_MAX = 13;
const URI_MAX = 200;
const WSOL = new PublicKey("So11111111111111111111111111111111111111112");

const optionBool = (v: unknown): boolean => Boolean((v as { 0?: boolean } | null)?.[0]);
const optionU64 = (v: unknown): bigint => big(((v as { 0?: never } | null)?.[0] ?? 0) as never);

export function createV2(ctx: InvokeContext, args: Record<string, unknown>): void {
  ctx.consume(CREATE_UNITS);
  const keys = checkAccounts(codec(), "createV2", ctx);
  const global = loadAccount<Global>(codec(), ctx, keys.key("global"), "Global").data;
  const name = String(args.name);
  const symbol = String(args.symbol);
  const uri = String(args.uri);
  const isMayhem = Boolean(args.isMayhemMode);
  refuseArgs(global, { name, symbol, uri, creator: args.creator as PublicKey, isMayhem, args });
  if (keys.remaining.length > 0 && !isSolQuote(keys.remaining[0]!.pubkey))
    throw codec().error("UnsupportedQuoteMint", "token-quoted coins are not emulated by the local chain");
  const mint = keys.key("mint");
  const user = keys.key("user");
  const creator = args.creator as PublicKey;
  createMint(ctx, { mint, user, name, symbol, uri });
  const curveKey = keys.key("bondingCurve");
  initAccount(ctx, user, curveKey, pumpPda.bondingCurve(mint).seeds, BONDING_CURVE_SPACE);
  const curve = {
    virtualTokenReserves: global.initialVirtualTokenReserves,
    virtualQuoteReserves: global.initialVirtualSolReserves,
    realTokenReserves: global.initialRealTokenReserves,
    realQuoteReserves: bn(0),
    tokenTotalSupply: global.tokenTotalSupply,
    complete: false,
    creator,
    isMayhemMode: isMayhem,
    isCashbackCoin: false,
    quoteMint: PublicKey.default,
    // On a SOL quote the argument is ignored: the fee schedule's rate applies (IDL create_v2 docs).
    creatorFeeBps: bn(0),
    canEditCreatorFee: false,
    isHolderReward: false,
  };
  const account = ctx.get(curveKey)!;
  ctx.set(curveKey, { ...account, data: codec().encodeAccount("BondingCurve", curve, BONDING_CURVE_SPACE) });
  mintSupply(ctx, {
    mint,
    user,
    curveKey,
    associated: keys.key("associatedBondingCurve"),
    supply: big(global.tokenTotalSupply),
  });
  ctx.emitEvent(
    codec().encodeEvent("CreateEvent", {
      name,
      symbol,
      uri,
      mint,
      bondingCurve: curveKey,
      user,
      creator,
      timestamp: bn(ctx.clock.unixTimestamp),
      virtualTokenReserves: curve.virtualTokenReserves,
      virtualSolReserves: curve.virtualQuoteReserves,
      realTokenReserves: curve.realTokenReserves,
      tokenTotalSupply: curve.tokenTotalSupply,
      tokenProgram: TOKEN_2022_ID,
      isMayhemMode: isMayhem,
      isCashbackEnabled: false,
      quoteMint: PublicKey.default,
      virtualQuoteReserves: curve.virtualQuoteReserves,
      creatorFeeBps: bn(0),
      isHolderReward: false,
    }),
  );
}

function isSolQuote(quoteMint: PublicKey): boolean {
  return quoteMint.equals(WSOL) || quoteMint.equals(PublicKey.default);
}

function refuseArgs(
  global: Global,
  a: {
    name: string;
    symbol: string;
    uri: string;
    creator: PublicKey;
    isMayhem: boolean;
    args: Record<string, unknown>;
  },
): void {
  if (!global.createV2Enabled) throw codec().error("CreateV2Disabled");
  if ([...a.name].length > NAME_MAX) throw codec().error("NameTooLong");
  if ([...a.symbol].length > SYMBOL_MAX) throw codec().error("SymbolTooLong");
  if ([...a.uri].length > URI_MAX) throw codec().error("UriTooLong");
  if (a.creator.equals(PublicKey.default)) throw codec().error("CreatorShouldNotBeZero");
  if (optionBool(a.args.isCashbackEnabled)) throw codec().error("CashbackDeprecated");
  if (optionBool(a.args.isHolderReward) && !global.isHolderRewardEnabled) throw codec().error("HolderRewardDisabled");
  if (a.isMayhem && !global.mayhemModeEnabled) throw codec().error("MayhemModeDisabled");
  // Mayhem coins CPI into the Mayhem program, which is not loadable offline: refused before any state changes.
  if (a.isMayhem) throw codec().error("CpitializeMayhemFailed", "the Mayhem program is not emulated");
  void optionU64(a.args.creatorFeeBps);
}

/** Token-2022's token-metadata `initialize` (spl-token-metadata-interface): discriminator, then borsh strings. */
function initializeMetadataInstruction(
  mint: PublicKey,
  authority: PublicKey,
  meta: { name: string; symbol: string; uri: string },
): TransactionInstruction {
  const disc = createHash("sha256").update("spl_token_metadata_interface:initialize_account").digest().subarray(0, 8);
  const str = (s: string) => {
    const b = Buffer.from(s, "utf8");
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.length);
    return Buffer.concat([len, b]);
  };
  return new TransactionInstruction({
    programId: TOKEN_2022_ID,
    keys: [
      { pubkey: mint, isSigner: false, isWritable: true },
      { pubkey: authority, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: authority, isSigner: true, isWritable: false },
    ],
    data: Buffer.concat([disc, str(meta.name), str(meta.symbol), str(meta.uri)]),
  });
}

/** Bytes the token-metadata TLV entry takes: type and length, authority, mint, three strings, an empty vec. */
/** spl-token's Multisig::LEN: Token-2022 never leaves an extended account at this length. */
const MULTISIG_SIZE = 355;

function metadataBytes(meta: { name: string; symbol: string; uri: string }): number {
  const s = (x: string) => 4 + Buffer.byteLength(x, "utf8");
  return 4 + 32 + 32 + s(meta.name) + s(meta.symbol) + s(meta.uri) + 4;
}

function createMint(
  ctx: InvokeContext,
  m: { mint: PublicKey; user: PublicKey; name: string; symbol: string; uri: string },
): void {
  const authority = pumpPda.mintAuthority();
  const space = getMintLen([ExtensionType.MetadataPointer]);
  // Paid for the metadata too: Token-2022 grows the mint into it and needs it rent-exempt then.
  // A length equal to a multisig account's (355) gets an extension type's two bytes more, as
  // Token-2022 pads it (`adjust_len_for_multisig`) so the account cannot be read as a multisig
  // ("Demo Harbor"'s metadata lands exactly there).
  const grown = space + metadataBytes(m);
  const lamports = ctx.minimumBalanceForRentExemption(grown === MULTISIG_SIZE ? grown + 2 : grown);
  ctx.invoke(
    SystemProgram.createAccount({
      fromPubkey: m.user,
      newAccountPubkey: m.mint,
      lamports: lamportsAsNumber(lamports),
      space,
      programId: TOKEN_2022_ID,
    }),
  );
  ctx.invoke(createInitializeMetadataPointerInstruction(m.mint, authority.address, m.mint, TOKEN_2022_ID));
  ctx.invoke(createInitializeMint2Instruction(m.mint, DECIMALS, authority.address, null, TOKEN_2022_ID));
  ctx.invoke(initializeMetadataInstruction(m.mint, authority.address, m), [authority.seeds]);
}

function mintSupply(
  ctx: InvokeContext,
  s: { mint: PublicKey; user: PublicKey; curveKey: PublicKey; associated: PublicKey; supply: bigint },
): void {
  const authority = pumpPda.mintAuthority();
  ctx.invoke(createAssociatedTokenAccountInstruction(s.user, s.associated, s.curveKey, s.mint, TOKEN_2022_ID));
  ctx.invoke(createMintToInstruction(s.mint, s.associated, authority.address, s.supply, [], TOKEN_2022_ID), [
    authority.seeds,
  ]);
  // No one can mint more: the authority is revoked once the supply sits on the curve.
  ctx.invoke(
    createSetAuthorityInstruction(s.mint, authority.address, AuthorityType.MintTokens, null, [], TOKEN_2022_ID),
    [authority.seeds],
  );
}
