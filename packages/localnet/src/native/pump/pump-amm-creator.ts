/**
 * pump_amm's coin creator fees: collect_coin_creator_fee (permissionless, the vault's whole quote
 * balance to the coin creator's token account) and transfer_creator_fees_to_pump (v1: the WSOL
 * vault's balance, unwrapped, into pump's creator vault of the same creator; skipped below the
 * token account's rent, as its IDL docs say) and its v2 (the same for a SOL-quoted coin, with a
 * payer and pump's creator vault ATA in the list; CREATOR_FEE_SHARING.md). A token-quoted v2 (a
 * token transfer into pump's creator vault ATA) is not emulated.
 */
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { type PublicKey, SystemProgram } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext } from "../runtime";
import {
  address,
  at,
  ata,
  bumpSeed,
  mintAccount,
  pda,
  program,
  signer,
  tokenAccount,
  tokenProgramOf,
  transferTokens,
  writable,
} from "./pump-amm-accounts";
import { PUMP_AMM_PROGRAM_ID, PUMP_FEES_PROGRAM_ID, PUMP_PROGRAM_ID } from "./pump-amm-genesis";

const COLLECT_UNITS = 12_000;
const TRANSFER_TO_PUMP_UNITS = 15_000;
const TOKEN_ACCOUNT_SPACE = 165;

const collectCoinCreatorFee: InstructionHandler = (ctx) => {
  ctx.consume(COLLECT_UNITS);
  const { pumpAmm } = pumpCodecs();
  const quoteMintM = at(ctx, 0, "quote_mint");
  const quoteProgram = tokenProgramOf(at(ctx, 1, "quote_token_program"), "quote_token_program");
  const coinCreatorM = at(ctx, 2, "coin_creator");
  const authorityM = at(ctx, 3, "coin_creator_vault_authority");
  const bump = pda(
    authorityM,
    [Buffer.from("creator_vault"), coinCreatorM.pubkey.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "coin_creator_vault_authority",
  );
  const vaultM = at(ctx, 4, "coin_creator_vault_ata");
  writable(vaultM, "coin_creator_vault_ata");
  ata(vaultM, authorityM.pubkey, quoteMintM.pubkey, quoteProgram, "coin_creator_vault_ata");
  const destM = at(ctx, 5, "coin_creator_token_account");
  writable(destM, "coin_creator_token_account");
  pda(at(ctx, 6, "event_authority"), [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "event_authority");
  address(at(ctx, 7, "program"), PUMP_AMM_PROGRAM_ID, "program");
  const quote = mintAccount(ctx, quoteMintM.pubkey, "quote_mint");
  if (!quote.program.equals(quoteProgram))
    throw anchorError("InvalidProgramId", "Program ID was not as expected: quote_token_program");
  const vault = tokenAccount(ctx, vaultM.pubkey, "coin_creator_vault_ata");
  const dest = tokenAccount(ctx, destM.pubkey, "coin_creator_token_account");
  if (!dest.mint.equals(quoteMintM.pubkey))
    throw anchorError("ConstraintTokenMint", "A token mint constraint was violated: coin_creator_token_account");
  if (!dest.owner.equals(coinCreatorM.pubkey))
    throw anchorError("ConstraintTokenOwner", "A token owner constraint was violated: coin_creator_token_account");
  if (ctx.get(coinCreatorM.pubkey)?.owner.equals(PUMP_FEES_PROGRAM_ID))
    throw pumpAmm.error("CreatorVaultMigratedToSharingConfig");
  const seeds = [Buffer.from("creator_vault"), coinCreatorM.pubkey.toBytes(), bumpSeed(bump)];
  transferTokens(ctx, vaultM.pubkey, quoteMintM.pubkey, destM.pubkey, authorityM.pubkey, vault.amount, quote, seeds);
  ctx.emitEvent(
    pumpAmm.encodeEvent("CollectCoinCreatorFeeEvent", {
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      coinCreator: coinCreatorM.pubkey,
      coinCreatorFee: new BN(vault.amount.toString()),
      coinCreatorVaultAta: vaultM.pubkey,
      coinCreatorTokenAccount: destM.pubkey,
    }),
  );
};

/** The creator's two vaults, checked: pump_amm's authority and WSOL ATA, pump's creator vault. */
interface CreatorVaults {
  coinCreator: PublicKey;
  authority: PublicKey;
  authorityBump: number;
  vaultAta: PublicKey;
  pumpVault: PublicKey;
}

/**
 * coin_creator, coin_creator_vault_authority [w] (["creator_vault", coin_creator]),
 * coin_creator_vault_ata [w] (its WSOL ATA) and pump_creator_vault [w] (pump's
 * ["creator-vault", coin_creator]) from index `first` on: the same four in v1 and v2.
 */
function creatorVaults(ctx: InvokeContext, first: number): CreatorVaults {
  const coinCreator = at(ctx, first, "coin_creator").pubkey;
  const authorityM = at(ctx, first + 1, "coin_creator_vault_authority");
  writable(authorityM, "coin_creator_vault_authority");
  const authorityBump = pda(
    authorityM,
    [Buffer.from("creator_vault"), coinCreator.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "coin_creator_vault_authority",
  );
  const vaultM = at(ctx, first + 2, "coin_creator_vault_ata");
  writable(vaultM, "coin_creator_vault_ata");
  ata(vaultM, authorityM.pubkey, NATIVE_MINT, TOKEN_PROGRAM_ID, "coin_creator_vault_ata");
  const pumpVaultM = at(ctx, first + 3, "pump_creator_vault");
  writable(pumpVaultM, "pump_creator_vault");
  pda(pumpVaultM, [Buffer.from("creator-vault"), coinCreator.toBytes()], PUMP_PROGRAM_ID, "pump_creator_vault");
  return {
    coinCreator,
    authority: authorityM.pubkey,
    authorityBump,
    vaultAta: vaultM.pubkey,
    pumpVault: pumpVaultM.pubkey,
  };
}

/**
 * The WSOL vault's fees into pump's creator vault as lamports: close the vault into its authority,
 * pay the fees on, reopen the vault with the authority paying its rent back. Skipped below a token
 * account's rent (the IDL's docs of transfer_creator_fees_to_pump; v2's WSOL path is the same
 * close-and-recreate, CREATOR_FEE_SHARING.md).
 */
function unwrapToPump(ctx: InvokeContext, v: CreatorVaults): void {
  const amount = tokenAccount(ctx, v.vaultAta, "coin_creator_vault_ata").amount;
  if (amount < ctx.minimumBalanceForRentExemption(TOKEN_ACCOUNT_SPACE)) {
    ctx.log("coin creator fees below the token account's rent: transfer skipped");
    return;
  }
  const seeds = [Buffer.from("creator_vault"), v.coinCreator.toBytes(), bumpSeed(v.authorityBump)];
  const authority = v.authority;
  ctx.invoke(createCloseAccountInstruction(v.vaultAta, authority, authority, [], TOKEN_PROGRAM_ID), [seeds]);
  ctx.invoke(SystemProgram.transfer({ fromPubkey: authority, toPubkey: v.pumpVault, lamports: amount }), [seeds]);
  ctx.invoke(
    createAssociatedTokenAccountIdempotentInstruction(authority, v.vaultAta, authority, NATIVE_MINT, TOKEN_PROGRAM_ID),
    [seeds],
  );
}

function eventCpiAccounts(ctx: InvokeContext, first: number): void {
  pda(at(ctx, first, "event_authority"), [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "event_authority");
  address(at(ctx, first + 1, "program"), PUMP_AMM_PROGRAM_ID, "program");
}

const transferCreatorFeesToPump: InstructionHandler = (ctx) => {
  ctx.consume(TRANSFER_TO_PUMP_UNITS);
  address(at(ctx, 0, "wsol_mint"), NATIVE_MINT, "wsol_mint");
  program(at(ctx, 1, "token_program"), TOKEN_PROGRAM_ID, "token_program");
  program(at(ctx, 2, "system_program"), SystemProgram.programId, "system_program");
  program(at(ctx, 3, "associated_token_program"), ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  const vaults = creatorVaults(ctx, 4);
  eventCpiAccounts(ctx, 8);
  unwrapToPump(ctx, vaults);
};

/**
 * v2 (the IDL's 12 accounts): payer [w, s], quote_mint, token_program, system_program,
 * associated_token_program, the creator's vaults as v1, pump_creator_vault_ata [w] (ATA of pump's
 * creator vault; unused for WSOL and may not exist, so only its address is checked), event_authority,
 * program. For WSOL it moves what v1 moves; the payer pays nothing.
 */
const transferCreatorFeesToPumpV2: InstructionHandler = (ctx) => {
  ctx.consume(TRANSFER_TO_PUMP_UNITS);
  const payerM = at(ctx, 0, "payer");
  signer(payerM, "payer");
  writable(payerM, "payer");
  const quoteMint = at(ctx, 1, "quote_mint").pubkey;
  const tokenProgram = tokenProgramOf(at(ctx, 2, "token_program"), "token_program");
  program(at(ctx, 3, "system_program"), SystemProgram.programId, "system_program");
  program(at(ctx, 4, "associated_token_program"), ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  if (!quoteMint.equals(NATIVE_MINT)) {
    ctx.log("transfer_creator_fees_to_pump_v2 for a token-quoted coin is not emulated by the local chain");
    throw anchorError("InstructionFallbackNotFound", "token-quoted transfer is not emulated");
  }
  const quote = mintAccount(ctx, quoteMint, "quote_mint");
  if (!quote.program.equals(tokenProgram))
    throw anchorError("InvalidProgramId", "Program ID was not as expected: token_program");
  const vaults = creatorVaults(ctx, 5);
  const pumpVaultAtaM = at(ctx, 9, "pump_creator_vault_ata");
  writable(pumpVaultAtaM, "pump_creator_vault_ata");
  pda(
    pumpVaultAtaM,
    [vaults.pumpVault.toBytes(), tokenProgram.toBytes(), quoteMint.toBytes()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "pump_creator_vault_ata",
  );
  eventCpiAccounts(ctx, 10);
  unwrapToPump(ctx, vaults);
};

export const creatorFeeHandlers: Record<string, InstructionHandler> = {
  collectCoinCreatorFee,
  transferCreatorFeesToPump,
  transferCreatorFeesToPumpV2,
};
