/**
 * The LaunchProgram port contract, written once and run against every adapter: what the service
 * relies on when it sweeps creator fees. Each adapter supplies a LaunchHarness (a chain it can
 * create tokens on, make fees accrue, and submit transactions to); the assertions are about
 * money the ledger would credit, never about adapter internals.
 *
 *   describeLaunchProgramContract("pump", async () => makePumpHarness());
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createCloseAccountInstruction } from "@solana/spl-token";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { type SweepItem, packSweeps } from "../../src/chain/packing";
import type { ChainReader, ConfirmedTransaction, LaunchProgram, SweepEffect, TokenRef } from "../../src/chain/ports";

export interface LaunchHarness {
  launch: LaunchProgram;
  reader: ChainReader;
  /** pays for sweeps and receives the fees */
  treasury: Keypair;
  /** false when the adapter's chain has no swap venue to accrue into */
  supportsPool: boolean;
  /** a token launched on this chain whose launch-program creator is `creator` */
  createToken(creator: Keypair): Promise<TokenRef>;
  /**
   * make fees accrue to the token's creator (through trades where the adapter's chain has them);
   * returns the creator fee that accrued across both vaults, in lamports
   */
  accrue(token: TokenRef, venue: "curve" | "pool", approxLamports: bigint): Promise<bigint>;
  /** someone else sends lamports to an address (e.g. collected our fees into the creator address) */
  gift(address: string, lamports: bigint): Promise<void>;
  /** sign, send and wait for the transaction; returns it as the reader reads it back (also when it failed) */
  submit(instructions: readonly TransactionInstruction[], signers: readonly Keypair[]): Promise<ConfirmedTransaction>;
  /**
   * What pump.fun's fee sharing does to a coin (the creator or the global admin can start it): the
   * coin's sharing config, with these shareholders, becomes its launch-program creator, and later
   * fees (`accrue`) go to the sharing config's vaults.
   */
  migrateToSharing(
    token: TokenRef,
    shareholders: { address: string; shareBps: number }[],
    options?: { active?: boolean },
  ): Promise<void>;
  /** false when the emulation cannot execute the launch program's buys (burn-buy cases are skipped there) */
  supportsBuys?: boolean;
  /** false where buys are built on the pool only (the emulated pump programs keep no Global) */
  curveBuys?: boolean;
  /**
   * false when the emulation cannot execute a first buy on a fresh curve (that case is skipped
   * there; pump's first buy is checked against the SDK and the IDL in pump-buy-burn.test.ts)
   */
  supportsFirstBuy?: boolean;
  /** network fee the payer was charged for this transaction */
  feeLamports(tx: ConfirmedTransaction): bigint;
  /**
   * The launch program changes its accounts' layout (pump's announced v3: fees kept in the curve
   * until a `sweep_creator_fee`); absent where the chain cannot
   */
  changeProgramLayout?(token: TokenRef): Promise<void>;
  close(): Promise<void>;
}

/** Upper bound on what an adapter may keep back in a creator address: the rent-exempt minimum. */
const MAX_RESERVE_LAMPORTS = 890_880n;
const MASTER = new Uint8Array(32).fill(11);

export function describeLaunchProgramContract(name: string, makeHarness: () => Promise<LaunchHarness>): void {
  describe(`LaunchProgram contract: ${name}`, () => {
    let h: LaunchHarness;
    let nextIndex = 1;
    beforeEach(async () => {
      h = await makeHarness();
    });
    afterEach(async () => {
      await h.close();
    });

    const newToken = async () => {
      const creator = deriveCreatorKeypair(MASTER, nextIndex++);
      return { token: await h.createToken(creator), creator };
    };

    /** What the sweep job does: read, pack, submit, decode. */
    const sweep = async (tokens: { token: TokenRef; creator: Keypair }[]) => {
      const readings = await h.launch.readVaults(tokens.map((t) => t.token));
      const items: SweepItem[] = tokens.map((t, i) => ({
        tokenId: i + 1,
        token: t.token,
        reading: readings[i]!,
        creatorSigner: t.creator,
      }));
      const { batches } = packSweeps(items, { launchProgram: h.launch, treasury: h.treasury.publicKey });
      const effects: SweepEffect[] = [];
      const txs: ConfirmedTransaction[] = [];
      for (const batch of batches) {
        const tx = await h.submit(batch.instructions, batch.signers);
        expect(tx.err).toBeNull();
        txs.push(tx);
        effects.push(
          ...h.launch.decodeSweep(
            tx,
            batch.items.map((it) => it.token.creator),
          ),
        );
      }
      return { effects, txs, readings };
    };
    const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
    const treasuryGain = (tx: ConfirmedTransaction) => {
      const i = tx.accountKeys.indexOf(h.treasury.publicKey.toBase58());
      return tx.postBalances[i]! - tx.preBalances[i]!;
    };

    test("a sweep moves the fees of several tokens to the treasury and reports each amount once", async () => {
      const tokens = await Promise.all([newToken(), newToken(), newToken()]);
      let accrued = 0n;
      for (const t of tokens) accrued += await h.accrue(t.token, "curve", 20_000_000n);
      const { effects, txs, readings } = await sweep(tokens);
      expect(sum(readings.map((r) => r.curveLamports))).toBe(accrued);
      expect(effects.length).toBe(3);
      expect(sum(effects.map((e) => e.collectedLamports))).toBe(accrued);
      // what the ledger credits is exactly what reached the treasury (plus the network fee it paid)
      const moved = sum(effects.map((e) => e.movedToTreasuryLamports));
      expect(moved).toBe(sum(txs.map((tx) => treasuryGain(tx) + h.feeLamports(tx))));
      expect(moved).toBeLessThanOrEqual(accrued);
      expect(accrued - moved).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS * 3n);
      // decoding the same transaction again gives the same answer (a replay is recognisable, not new money)
      for (const tx of txs)
        expect(
          h.launch
            .decodeSweep(
              tx,
              tokens.map((t) => t.token.creator),
            )
            .filter((e) => e.collectedLamports > 0n),
        ).toEqual(effects.filter((e) => e.collectedLamports > 0n && tx.accountKeys.includes(e.creator)));
      const after = await h.launch.readVaults(tokens.map((t) => t.token));
      expect(after.map((r) => r.curveLamports)).toEqual([0n, 0n, 0n]);
    });

    test("nothing is credited twice: with no new fees a second round moves nothing", async () => {
      const t = await newToken();
      const accrued = await h.accrue(t.token, "curve", 15_000_000n);
      const first = await sweep([t]);
      const second = await sweep([t]);
      const total = sum([...first.effects, ...second.effects].map((e) => e.movedToTreasuryLamports));
      expect(sum(second.effects.map((e) => e.movedToTreasuryLamports))).toBe(0n);
      expect(total).toBeLessThanOrEqual(accrued);
      expect(accrued - total).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS);
    });

    test("fees accruing between the reading and the landing are not lost: the next sweep takes them", async () => {
      const t = await newToken();
      let accrued = await h.accrue(t.token, "curve", 10_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      // one small trade lands first: its fee is below the rent-exempt minimum, the dangerous case
      accrued += await h.accrue(t.token, "curve", 100_000n);
      const ixs = h.launch.sweepInstructions([{ token: t.token, reading: reading! }], h.treasury.publicKey);
      const tx = await h.submit(ixs, [t.creator]);
      expect(tx.err).toBeNull();
      const [effect] = h.launch.decodeSweep(tx, [t.token.creator]);
      // a collect takes at least what was read (pump takes all there is at execution)
      expect(effect!.collectedLamports).toBeGreaterThanOrEqual(reading!.curveLamports);
      expect(effect!.collectedLamports).toBeLessThanOrEqual(accrued);
      const next = await sweep([t]);
      const total = effect!.movedToTreasuryLamports + sum(next.effects.map((e) => e.movedToTreasuryLamports));
      expect(total).toBeLessThanOrEqual(accrued);
      expect(accrued - total).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS);
    });

    test("fees somebody else already collected into the creator address are swept and credited", async () => {
      const t = await newToken();
      const accrued = await h.accrue(t.token, "curve", 8_000_000n);
      await h.gift(t.token.creator, 4_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.creatorLamports).toBeGreaterThanOrEqual(4_000_000n);
      const { effects } = await sweep([t]);
      expect(effects[0]!.collectedLamports).toBe(accrued);
      expect(effects[0]!.movedToTreasuryLamports).toBeGreaterThan(accrued + 4_000_000n - MAX_RESERVE_LAMPORTS - 1n);
      expect(effects[0]!.movedToTreasuryLamports).toBeLessThanOrEqual(accrued + 4_000_000n);
    });

    test("migrated tokens: both venues collected in one transaction, the pool fee counted once", async () => {
      if (!h.supportsPool) return;
      const t = await newToken();
      const curve = await h.accrue(t.token, "curve", 6_000_000n);
      const pool = await h.accrue(t.token, "pool", 9_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.bonded).toBe(true);
      expect(reading!.poolLamports).toBeGreaterThan(0n);
      expect(reading!.curveLamports + reading!.poolLamports).toBe(curve + pool);
      const { effects, txs } = await sweep([t]);
      expect(txs.length).toBe(1);
      expect(effects[0]!.collectedLamports).toBe(curve + pool);
      expect(effects[0]!.movedToTreasuryLamports).toBe(treasuryGain(txs[0]!) + h.feeLamports(txs[0]!));
      expect(curve + pool - effects[0]!.movedToTreasuryLamports).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS);
      const after = await h.launch.readVaults([t.token]);
      expect([after[0]!.curveLamports, after[0]!.poolLamports]).toEqual([0n, 0n]);
    });

    test("a creator moved to its fee-sharing config is detected, and the service's share reaches the treasury through distribution", async () => {
      const t = await newToken();
      const before = await h.accrue(t.token, "curve", 7_000_000n);
      const other = deriveCreatorKeypair(MASTER, 9_999).publicKey.toBase58();
      await h.gift(other, 1_000_000n); // shareholders must exist to be paid
      await h.migrateToSharing(t.token, [
        { address: t.token.creator, shareBps: 7_500 },
        { address: other, shareBps: 2_500 },
      ]);
      const after = await h.accrue(t.token, "curve", 40_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.feeSharing).not.toBeNull();
      expect(reading!.feeSharing!.isSharingConfig).toBe(true);
      expect(reading!.feeSharing!.currentCreator).not.toBe(t.token.creator);
      expect(reading!.feeSharing!.serviceShareBps).toBe(7_500);
      expect(reading!.feeSharing!.blockedReason).toBeNull();
      expect(reading!.feeSharing!.distributableLamports).toBe(after);
      // the derived key's own vault keeps only what accrued before the switch
      expect(reading!.curveLamports).toBe(before);
      const share = (after * 7_500n) / 10_000n;
      expect(reading!.feeSharing!.shareLamports).toBe(share);
      const { effects, txs } = await sweep([t]);
      expect(txs.length).toBe(1);
      const moved = effects[0]!.movedToTreasuryLamports;
      // credits follow only what reached the treasury
      expect(moved).toBe(treasuryGain(txs[0]!) + h.feeLamports(txs[0]!));
      expect(moved).toBeLessThanOrEqual(before + share);
      expect(before + share - moved).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS + 2n);
      const [next] = await h.launch.readVaults([t.token]);
      expect(next!.curveLamports).toBe(0n);
      expect(next!.feeSharing!.distributableLamports).toBeLessThan(10n);
      // the other shareholder got its part, not more
      const otherNow = (await h.reader.getBalances([other])).get(other)!;
      expect(otherNow - 1_000_000n).toBe((after * 2_500n) / 10_000n);
      // a second round with no new fees moves at most the rounding slack left behind: never twice
      const again = await sweep([t]);
      const total = moved + sum(again.effects.map((e) => e.movedToTreasuryLamports));
      expect(total).toBeLessThanOrEqual(before + share);
      expect(before + share - total).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS);
    });

    test("a shared coin whose creator address never held anything is distributed too, crediting only what reached the treasury", async () => {
      const t = await newToken();
      await h.migrateToSharing(t.token, [{ address: t.token.creator, shareBps: 10_000 }]);
      const after = await h.accrue(t.token, "curve", 25_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.creatorLamports).toBe(0n);
      expect(reading!.feeSharing!.shareLamports).toBe(after);
      const { effects, txs } = await sweep([t]);
      const moved = effects[0]!.movedToTreasuryLamports;
      expect(moved).toBe(treasuryGain(txs[0]!) + h.feeLamports(txs[0]!));
      expect(moved).toBeGreaterThan(0n);
      expect(after - moved).toBeLessThanOrEqual(MAX_RESERVE_LAMPORTS + 1n);
    });

    test("a sharing config that does not name the service's key: detected, blocked with a reason, nothing distributed", async () => {
      const t = await newToken();
      const other = deriveCreatorKeypair(MASTER, 9_998).publicKey.toBase58();
      await h.gift(other, 1_000_000n);
      await h.migrateToSharing(t.token, [{ address: other, shareBps: 10_000 }]);
      await h.accrue(t.token, "curve", 30_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.feeSharing!.serviceShareBps).toBe(0);
      expect(reading!.feeSharing!.shareLamports).toBe(0n);
      expect(reading!.feeSharing!.blockedReason).toMatch(/shareholder/);
      expect(h.launch.sweepInstructions([{ token: t.token, reading: reading! }], h.treasury.publicKey)).toEqual([]);
      const paused = await newToken();
      await h.migrateToSharing(paused.token, [{ address: paused.token.creator, shareBps: 10_000 }], { active: false });
      await h.accrue(paused.token, "curve", 30_000_000n);
      const [p] = await h.launch.readVaults([paused.token]);
      expect(p!.feeSharing!.blockedReason).toMatch(/paused/);
      expect(h.launch.sweepInstructions([{ token: paused.token, reading: p! }], h.treasury.publicKey)).toEqual([]);
    });

    test("a fee-shared graduated coin whose AMM fees stay below the WSOL account's rent is swept run after run: the creator-address balance is credited, nothing fails", async () => {
      if (!h.supportsPool) return;
      const t = await newToken();
      await h.accrue(t.token, "pool", 3_000_000n); // graduated, with fees from before the switch
      await h.migrateToSharing(t.token, [{ address: t.token.creator, shareBps: 10_000 }]);
      let poolFees = 0n;
      for (let round = 0; round < 3; round++) {
        poolFees += await h.accrue(t.token, "pool", 500_000n);
        // what reached the creator address meanwhile (an earlier distribution, anybody's collect)
        await h.gift(t.token.creator, 3_000_000n);
        const { effects, txs, readings } = await sweep([t]); // fails the test if a transaction fails
        const sharing = readings[0]!.feeSharing!;
        expect(readings[0]!.bonded).toBe(true);
        expect(sharing.poolDistributableLamports).toBe(poolFees);
        expect(sharing.shareLamports).toBe(0n);
        expect(sharing.skippedReason).toMatch(/rent/);
        expect(txs.length).toBe(1);
        const moved = effects[0]!.movedToTreasuryLamports;
        expect(moved).toBe(treasuryGain(txs[0]!) + h.feeLamports(txs[0]!));
        expect(moved).toBeGreaterThanOrEqual(3_000_000n - MAX_RESERVE_LAMPORTS);
      }
      expect(poolFees).toBeLessThan(2_039_280n);
    });

    test("fee-shared fees below the program's minimum distributable amount wait with a reason while the creator-address balance is swept; from the minimum on they are distributed", async () => {
      const t = await newToken();
      await h.migrateToSharing(t.token, [{ address: t.token.creator, shareBps: 10_000 }]);
      const small = await h.accrue(t.token, "curve", 300_000n);
      await h.gift(t.token.creator, 3_000_000n);
      const first = await sweep([t]);
      const waiting = first.readings[0]!.feeSharing!;
      expect(waiting.blockedReason).toBeNull();
      expect(waiting.minimumDistributableLamports!).toBeGreaterThan(small);
      expect(waiting.shareLamports).toBe(0n);
      expect(waiting.skippedReason).toMatch(/minimum distributable amount/);
      expect(first.effects[0]!.collectedLamports).toBe(0n);
      expect(first.effects[0]!.movedToTreasuryLamports).toBeGreaterThanOrEqual(3_000_000n - MAX_RESERVE_LAMPORTS);
      const more = await h.accrue(t.token, "curve", 2_000_000n);
      const second = await sweep([t]);
      expect(second.readings[0]!.feeSharing!.shareLamports).toBe(small + more);
      expect(second.readings[0]!.feeSharing!.skippedReason ?? null).toBeNull();
      expect(second.effects[0]!.collectedLamports).toBe(small + more);
    });

    test("a launch program whose accounts change layout is noticed: the reading says program-changed and nothing is swept on a guess", async () => {
      if (!h.changeProgramLayout) return;
      const t = await newToken();
      await h.accrue(t.token, "curve", 5_000_000n);
      const [before] = await h.launch.readVaults([t.token]);
      expect(before!.programChanged ?? null).toBeNull();
      await h.changeProgramLayout(t.token);
      const [after] = await h.launch.readVaults([t.token]);
      expect(after!.programChanged).toMatch(/^program-changed: /);
      expect(h.launch.sweepInstructions([{ token: t.token, reading: after! }], h.treasury.publicKey)).toEqual([]);
    });

    for (const venue of ["curve", "pool"] as const) {
      test(`a burn buy on the ${venue} states its price impact from the fresh quote: none for a tiny buy, more for a larger one`, async () => {
        if (!h.supportsBuys || (venue === "pool" && !h.supportsPool) || (venue === "curve" && h.curveBuys === false))
          return;
        const t = await newToken();
        await h.accrue(t.token, venue, 2_000_000n);
        const impact = async (lamports: bigint) =>
          (await h.launch.buildBurnBuy(t.token, h.treasury.publicKey, lamports, 100)).priceImpactBps;
        // No larger than the probe: too small to measure, reported as none.
        expect(await impact(100_000n)).toBe(0);
        const one = await impact(1_000_000_000n);
        const five = await impact(5_000_000_000n);
        // A pump curve holds at least 30 SOL of virtual reserves: 1 SOL moves it under 4%, 5 SOL more.
        expect(one).toBeGreaterThan(0);
        expect(one).toBeLessThan(400);
        expect(five).toBeGreaterThan(one);
      });
    }

    test("a burn buy on the swap venue spends exactly the order: burned equals what left the treasury", async () => {
      if (!h.supportsPool || !h.supportsBuys) return;
      const t = await newToken();
      await h.accrue(t.token, "pool", 2_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      expect(reading!.bonded).toBe(true);
      const treasury = h.treasury.publicKey.toBase58();
      const before = (await h.reader.getBalances([treasury])).get(treasury)!;
      // an order whose fee split does not round evenly: any unspent remainder would show
      const orderLamports = 123_456_789n;
      const plan = await h.launch.buildBurnBuy(t.token, h.treasury.publicKey, orderLamports, 500);
      const buy = await h.submit(plan.instructions, []);
      expect(buy.err).toBeNull();
      const bought = h.launch.decodeBoughtAmount(buy, t.token.mint, treasury);
      expect(bought).toBeGreaterThanOrEqual(plan.minTokenOut);
      // burn it and close the account, as the burns job does, so the account's rent comes back
      const burn = await h.launch.buildBurn(t.token.mint, h.treasury.publicKey, bought);
      const account = burn[0]!.keys[0]!.pubkey;
      const burnTx = await h.submit(
        [
          ...burn,
          createCloseAccountInstruction(account, h.treasury.publicKey, h.treasury.publicKey, [], burn[0]!.programId),
        ],
        [],
      );
      expect(burnTx.err).toBeNull();
      const after = (await h.reader.getBalances([treasury])).get(treasury)!;
      const networkFees = h.feeLamports(buy) + h.feeLamports(burnTx);
      expect(before - after - networkFees).toBe(orderLamports);
    });

    /** What the launch page's wallet does with buildCreate: sign each transaction and send them in order. */
    const launchThroughPage = async (firstBuyLamports: bigint) => {
      const creator = deriveCreatorKeypair(MASTER, nextIndex++);
      const mint = Keypair.generate();
      const params = {
        mint: mint.publicKey.toBase58(),
        creator: creator.publicKey.toBase58(),
        // the harness's payer stands in for the page's wallet
        deployer: h.treasury.publicKey.toBase58(),
        name: "Contract",
        symbol: "CTR",
        uri: "https://example.test/page.json",
        firstBuyLamports,
      };
      const transactions = await h.launch.buildCreate(params);
      const landed: ConfirmedTransaction[] = [];
      for (const [i, instructions] of transactions.entries()) {
        const tx = await h.submit(instructions, i === 0 ? [mint] : []);
        expect(tx.err).toBeNull();
        landed.push(tx);
      }
      return { params, transactions, landed };
    };

    test("buildCreate: the page's create lands, names our creator and uri, and verifyCreate accepts it", async () => {
      const { params, transactions, landed } = await launchThroughPage(0n);
      expect(transactions.length).toBe(1);
      // the creator key is named, never asked to sign: the service signs nothing for a launch
      const signers = transactions[0]!.flatMap((ix) =>
        ix.keys.filter((k) => k.isSigner).map((k) => k.pubkey.toBase58()),
      );
      expect(signers).toContain(params.mint);
      expect(signers).toContain(params.deployer);
      expect(signers).not.toContain(params.creator);
      const verified = h.launch.verifyCreate(landed[0]!, params);
      expect(verified).toEqual({
        ok: true,
        create: expect.objectContaining({
          mint: params.mint,
          creator: params.creator,
          uri: params.uri,
          deployer: params.deployer,
        }),
      });
      const [reading] = await h.launch.readVaults([{ mint: params.mint, creator: params.creator }]);
      expect(reading).toMatchObject({ mint: params.mint, bonded: false, curveLamports: 0n, poolLamports: 0n });
      // another creator or uri than the launch's is refused
      expect(h.launch.verifyCreate(landed[0]!, { ...params, creator: params.deployer }).ok).toBe(false);
      expect(h.launch.verifyCreate(landed[0]!, { ...params, uri: "https://example.test/other.json" }).ok).toBe(false);
    });

    test("buildCreate with a first buy: the deployer receives tokens and the fee accrues to our creator", async () => {
      if (!h.supportsFirstBuy) return;
      const { params, landed } = await launchThroughPage(100_000_000n);
      const bought = landed.reduce((n, tx) => n + h.launch.decodeBoughtAmount(tx, params.mint, params.deployer), 0n);
      expect(bought).toBeGreaterThan(0n);
      expect(h.launch.verifyCreate(landed[0]!, params).ok).toBe(true);
      const [reading] = await h.launch.readVaults([{ mint: params.mint, creator: params.creator }]);
      const feeBps = BigInt(await h.launch.creatorFeeBps());
      expect(reading!.curveLamports).toBe((100_000_000n * feeBps) / 10_000n);
    });

    /** A transaction as the page's wallet would send it, compiled (v0, static keys) but never sent. */
    const unsent = (instructions: readonly TransactionInstruction[], payer: string) =>
      new VersionedTransaction(
        new TransactionMessage({
          payerKey: new PublicKey(payer),
          recentBlockhash: "11111111111111111111111111111111",
          instructions: [...instructions],
        }).compileToV0Message(),
      );

    test("launchOps reads the page's create (and first buy) back as this mint's; an unrelated instruction is no op", async () => {
      const creator = deriveCreatorKeypair(MASTER, nextIndex++);
      const params = {
        mint: Keypair.generate().publicKey.toBase58(),
        creator: creator.publicKey.toBase58(),
        deployer: h.treasury.publicKey.toBase58(),
        name: "Contract",
        symbol: "CTR",
        uri: "https://example.test/page.json",
        firstBuyLamports: 0n,
      };
      const transfer = SystemProgram.transfer({
        fromPubkey: h.treasury.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000,
      });
      expect(h.launch.launchOps(unsent([transfer], params.deployer))).toEqual([]);
      const [create] = await h.launch.buildCreate(params);
      expect(h.launch.launchOps(unsent(create!, params.deployer))).toEqual([{ kind: "create", mint: params.mint }]);
      // another program's instruction beside it changes nothing
      expect(h.launch.launchOps(unsent([transfer, ...create!], params.deployer))).toEqual([
        { kind: "create", mint: params.mint },
      ]);
      if (!h.supportsFirstBuy) return;
      const firstBuyLamports = 100_000_000n;
      const transactions = await h.launch.buildCreate({ ...params, firstBuyLamports });
      const ops = transactions.flatMap((ixs) => h.launch.launchOps(unsent(ixs, params.deployer)));
      expect(ops).toEqual([
        { kind: "create", mint: params.mint },
        { kind: "buy", mint: params.mint, maxSolLamports: firstBuyLamports },
      ]);
    });

    test("a sweep that fails on chain credits nothing", async () => {
      const t = await newToken();
      await h.accrue(t.token, "curve", 5_000_000n);
      const [reading] = await h.launch.readVaults([t.token]);
      // a stale reading claiming lamports the creator address does not have: the transfer must fail
      const ixs = h.launch.sweepInstructions(
        [{ token: t.token, reading: { ...reading!, creatorLamports: 50_000_000_000n } }],
        h.treasury.publicKey,
      );
      const tx = await h.submit(ixs, [t.creator]);
      expect(tx.err).not.toBeNull();
      expect(h.launch.decodeSweep(tx, [t.token.creator])).toEqual([
        { creator: t.token.creator, collectedLamports: 0n, movedToTreasuryLamports: 0n },
      ]);
      const [still] = await h.launch.readVaults([t.token]);
      expect(still!.curveLamports).toBe(reading!.curveLamports);
    });
  });
}
