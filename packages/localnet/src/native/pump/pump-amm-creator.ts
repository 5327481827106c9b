/**
 * pump_amm's coin creator fees: collect_coin_creator_fee (permissionless, the vault's whole quote
 * balance to the coin creator's token account) and transfer_creator_fees_to_pump (v1: the WSOL
 * vault's balance, unwrapped, into pump's creator vault of the same creator; skipped below the
 * token account's rent, as its IDL docs say).
 */
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { SystemProgram } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import {
  address,
  at,
  ata,
  bumpSeed,
  mintAccount,
  pda,
  program,
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

const transferCreatorFeesToPump: InstructionHandler = (ctx) => {
  ctx.consume(TRANSFER_TO_PUMP_UNITS);
  const wsolM = at(ctx, 0, "wsol_mint");
  address(wsolM, NATIVE_MINT, "wsol_mint");
  program(at(ctx, 1, "token_program"), TOKEN_PROGRAM_ID, "token_program");
  program(at(ctx, 2, "system_program"), SystemProgram.programId, "system_program");
  program(at(ctx, 3, "associated_token_program"), ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  const coinCreator = at(ctx, 4, "coin_creator").pubkey;
  const authorityM = at(ctx, 5, "coin_creator_vault_authority");
  writable(authorityM, "coin_creator_vault_authority");
  const bump = pda(
    authorityM,
    [Buffer.from("creator_vault"), coinCreator.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "coin_creator_vault_authority",
  );
  const vaultM = at(ctx, 6, "coin_creator_vault_ata");
  writable(vaultM, "coin_creator_vault_ata");
  ata(vaultM, authorityM.pubkey, NATIVE_MINT, TOKEN_PROGRAM_ID, "coin_creator_vault_ata");
  const pumpVaultM = at(ctx, 7, "pump_creator_vault");
  writable(pumpVaultM, "pump_creator_vault");
  pda(pumpVaultM, [Buffer.from("creator-vault"), coinCreator.toBytes()], PUMP_PROGRAM_ID, "pump_creator_vault");
  pda(at(ctx, 8, "event_authority"), [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "event_authority");
  address(at(ctx, 9, "program"), PUMP_AMM_PROGRAM_ID, "program");
  const amount = tokenAccount(ctx, vaultM.pubkey, "coin_creator_vault_ata").amount;
  if (amount < ctx.minimumBalanceForRentExemption(TOKEN_ACCOUNT_SPACE)) {
    ctx.log("coin creator fees below the token account's rent: transfer skipped");
    return;
  }
  // Unwrap: close the vault into its authority, pay the fees on, reopen the vault with the rent.
  const seeds = [Buffer.from("creator_vault"), coinCreator.toBytes(), bumpSeed(bump)];
  const authority = authorityM.pubkey;
  ctx.invoke(createCloseAccountInstruction(vaultM.pubkey, authority, authority, [], TOKEN_PROGRAM_ID), [seeds]);
  ctx.invoke(SystemProgram.transfer({ fromPubkey: authority, toPubkey: pumpVaultM.pubkey, lamports: amount }), [seeds]);
  ctx.invoke(
    createAssociatedTokenAccountIdempotentInstruction(
      authority,
      vaultM.pubkey,
      authority,
      NATIVE_MINT,
      TOKEN_PROGRAM_ID,
    ),
    [seeds],
  );
};

export const creatorFeeHandlers: Record<string, InstructionHandler> = {
  collectCoinCreatorFee,
  transferCreatorFeesToPump,
};
