/**
 * The System and SPL Token half of a pump sweep executed for real in LiteSVM: the creator's WSOL
 * ATA created by the treasury, filled (standing in for collect_coin_creator_fee, which cannot be
 * loaded offline), closed into the creator address, and the transfer to the treasury. Proves the
 * rent the treasury fronts comes back, the creator address stays rent-exempt, and decodeSweep's
 * figure equals what the treasury actually gained.
 */
import { describe, expect, test } from "bun:test";
import {
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Keypair, SystemProgram, type TransactionInstruction, VersionedTransaction } from "@solana/web3.js";
import { LiteSVM } from "litesvm";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { compileTransaction } from "../../src/chain/packing";
import { CREATOR_RESERVE_LAMPORTS, createPumpLaunchProgram } from "../../src/chain/pump";
import { PUMP_AMM_PROGRAM_ID, pumpPdas } from "../../src/chain/pump/layout";
import { confirmedTx, mapReader, poolEventIx } from "./support/fixtures";

describe("pool sweep under real System/SPL Token execution", () => {
  for (const preexisting of [0n, 3_000_000n]) {
    test(`creator address holding ${preexisting} lamports before: treasury gains exactly what decodeSweep reports`, () => {
      // the native mint account must exist for WSOL ATAs, as it does on every real cluster
      const svm = new LiteSVM().withNativeMints();
      const treasury = Keypair.generate();
      const creator = deriveCreatorKeypair(new Uint8Array(32).fill(1), Number(preexisting % 97n));
      const vaultOwner = Keypair.generate(); // stands in for the AMM's vault authority PDA
      svm.airdrop(treasury.publicKey, 100_000_000_000n);
      svm.airdrop(vaultOwner.publicKey, 10_000_000_000n);
      if (preexisting > 0n) svm.airdrop(creator.publicKey, preexisting);
      const send = (ixs: TransactionInstruction[], payer: Keypair, signers: Keypair[]) => {
        const tx = compileTransaction({
          instructions: ixs,
          payer: payer.publicKey,
          recentBlockhash: svm.latestBlockhash(),
        });
        tx.sign([payer, ...signers]);
        return svm.sendTransaction(tx);
      };
      // the "vault": a WSOL account holding the pool fees
      const poolFees = 7_000_000n;
      const vault = getAssociatedTokenAddressSync(NATIVE_MINT, vaultOwner.publicKey);
      const setup = send(
        [
          createAssociatedTokenAccountIdempotentInstruction(
            vaultOwner.publicKey,
            vault,
            vaultOwner.publicKey,
            NATIVE_MINT,
          ),
          SystemProgram.transfer({ fromPubkey: vaultOwner.publicKey, toPubkey: vault, lamports: poolFees }),
          createSyncNativeInstruction(vault),
        ],
        vaultOwner,
        [],
      );
      expect("err" in setup ? String(setup.err()) : "ok").toBe("ok");

      const mint = Keypair.generate().publicKey.toBase58();
      const launch = createPumpLaunchProgram(mapReader(new Map()));
      const reading = { mint, curveLamports: 0n, poolLamports: poolFees, creatorLamports: preexisting, bonded: true };
      const creatorAta = getAssociatedTokenAddressSync(NATIVE_MINT, creator.publicKey);
      const sweep = launch
        .sweepInstructions([{ token: { mint, creator: creator.publicKey.toBase58() }, reading }], treasury.publicKey)
        .map((ix) =>
          ix.programId.equals(PUMP_AMM_PROGRAM_ID)
            ? createTransferInstruction(vault, creatorAta, vaultOwner.publicKey, poolFees, [], TOKEN_PROGRAM_ID)
            : ix,
        );
      const tx = compileTransaction({
        instructions: sweep,
        payer: treasury.publicKey,
        recentBlockhash: svm.latestBlockhash(),
      });
      tx.sign([treasury, creator, vaultOwner]);
      const keys = tx.message.staticAccountKeys;
      const pre = keys.map((k) => svm.getBalance(k) ?? 0n);
      const result = svm.sendTransaction(tx);
      expect("err" in result ? String(result.err()) : "ok").toBe("ok");
      const post = keys.map((k) => svm.getBalance(k) ?? 0n);

      const confirmed = confirmedTx({
        accountKeys: keys.map((k) => k.toBase58()),
        preBalances: pre,
        postBalances: post,
        innerInstructions: [{ ...poolEventIx(creator.publicKey, poolFees), outerIndex: 2 }],
      });
      const [effect] = launch.decodeSweep(confirmed, [creator.publicKey.toBase58()]);
      const fee = 5_000n * BigInt(VersionedTransaction.deserialize(tx.serialize()).signatures.length);
      const treasuryIndex = keys.findIndex((k) => k.equals(treasury.publicKey));
      const treasuryGain = post[treasuryIndex]! - pre[treasuryIndex]!;
      expect(effect!.collectedLamports).toBe(poolFees);
      expect(effect!.movedToTreasuryLamports).toBe(treasuryGain + fee);
      // everything above the reserve left; the ATA rent the treasury fronted came back and is not credited
      expect(effect!.movedToTreasuryLamports).toBe(poolFees + preexisting - CREATOR_RESERVE_LAMPORTS);
      // the creator address keeps exactly the reserve: rent-exempt, so the transaction was valid
      expect(svm.getBalance(creator.publicKey)).toBe(CREATOR_RESERVE_LAMPORTS);
      expect(creatorAta.equals(pumpPdas.creatorWsolAta(creator.publicKey))).toBe(true);
      expect(svm.getAccount(creatorAta)?.lamports ?? 0n).toBe(0n);
    });
  }
});
