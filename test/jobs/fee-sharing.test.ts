/**
 * A coin whose creator pump.fun moves to its fee-sharing config (issue 18): the sweep job reads the
 * creator as the program does, distributes the service key's share into the treasury and credits
 * exactly what arrived; a config that leaves the service out stops the token, says why on its
 * public record and in the admin list, and nothing is credited for it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { jobHealth, listSetAside } from "../../src/jobs";
import { ledgerTotals } from "../../src/ledger/figures";
import { listFeeSharing } from "../../src/tokens/fee-sharing";
import { tokenDetail } from "../../src/tokens/queries";
import { moneyWorld, type World } from "./world";

const SOL = 1_000_000_000n;

describe("fee-sharing migration in the sweep job", () => {
  let w: World;
  beforeEach(async () => {
    w = await moneyWorld();
  });
  afterEach(async () => {
    await w.close();
  });

  const sweptOf = (tokenId: number) =>
    BigInt((w.db.$client.query("SELECT swept_lamports AS s FROM tokens WHERE id = ?").get(tokenId) as { s: bigint }).s);
  const sweepSignatures = () =>
    (
      w.db.$client.query("SELECT DISTINCT signature FROM sweeps WHERE status = 'confirmed'").all() as {
        signature: string;
      }[]
    ).map((r) => r.signature);

  test("a migrated creator naming the service's key: detected, distributed, credited exactly what reached the treasury", async () => {
    const a = w.launch([{ handle: "alice", bps: 10_000 }]);
    w.trade(a.mint, 2n * SOL);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(tokenDetail(w.db, a.mint)!.detail.feeSharing).toBeNull();
    const sweptBefore = sweptOf(a.tokenId);
    expect(sweptBefore).toBeGreaterThan(0n);

    w.local.node.shareCreatorFees(a.mint, [{ address: a.creator, shareBps: 10_000 }]);
    w.local.node.advanceSlots(1);
    w.trade(a.mint, 3n * SOL); // its fee now accrues to the sharing config's vault
    const [reading] = await w.launchProgram.readVaults([{ mint: a.mint, creator: a.creator }]);
    expect(reading!.feeSharing!.shareLamports).toBeGreaterThan(0n);

    const treasuryBefore = w.treasuryLamports();
    const signaturesBefore = new Set(sweepSignatures());
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const newSignatures = sweepSignatures().filter((s) => !signaturesBefore.has(s));
    expect(newSignatures.length).toBe(1);
    const credited = sweptOf(a.tokenId) - sweptBefore;
    // the old creator's vault could not have paid this: only the distribution did
    expect(credited).toBe(reading!.feeSharing!.shareLamports);
    expect(credited).toBe(w.treasuryLamports() - treasuryBefore + w.feesOf(newSignatures));

    const record = tokenDetail(w.db, a.mint)!.detail;
    expect(record.feeSharing).toMatchObject({
      status: "distributing",
      isSharingConfig: true,
      serviceShareBps: 10_000,
      reason: null,
    });
    expect(record.feeSharing!.currentCreator).not.toBe(a.creator);
    expect(BigInt(record.vaultLamports)).toBe(0n);
    w.checkRelations();
  });

  test("a fee-shared graduated coin whose AMM fees stay below 2,039,280 lamports is swept run after run: the creator-address balance is credited, nothing fails", async () => {
    const a = w.launch([{ handle: "carol", bps: 10_000 }]);
    w.trade(a.mint, 100n * SOL); // through the bond threshold: graduated
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    w.local.node.shareCreatorFees(a.mint, [{ address: a.creator, shareBps: 10_000 }]);
    w.local.node.advanceSlots(1);
    for (let round = 0; round < 3; round++) {
      w.trade(a.mint, SOL / 5n); // 600,000 lamports of fees a round into the config's pool vault
      w.local.node.fund(new PublicKey(a.creator), 2_000_000n); // distributed to the creator address earlier
      w.local.node.advanceSlots(1);
      const [reading] = await w.launchProgram.readVaults([{ mint: a.mint, creator: a.creator }]);
      expect(reading!.bonded).toBe(true);
      expect(reading!.feeSharing!.poolDistributableLamports).toBeLessThan(2_039_280n);
      expect(reading!.feeSharing!.skippedReason).toMatch(/rent/);
      const sweptBefore = sweptOf(a.tokenId);
      const treasuryBefore = w.treasuryLamports();
      const signaturesBefore = new Set(sweepSignatures());
      expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
      const newSignatures = sweepSignatures().filter((sig) => !signaturesBefore.has(sig));
      expect(newSignatures.length).toBe(1);
      expect(sweptOf(a.tokenId) - sweptBefore).toBe(2_000_000n);
      expect(w.treasuryLamports() - treasuryBefore + w.feesOf(newSignatures)).toBe(2_000_000n);
      expect(listSetAside(w.db)).toEqual([]);
      const failed = w.db.$client.query("SELECT COUNT(*) AS n FROM sweeps WHERE status = 'failed'").get() as {
        n: bigint;
      };
      expect(Number(failed.n)).toBe(0);
    }
    w.checkRelations();
  });

  test("a launch program whose layout changed (v3 fault): the token is set aside as program-changed, listed and unhealthy, and nothing is credited on a guess", async () => {
    const a = w.launch([{ handle: "dave", bps: 10_000 }]);
    w.trade(a.mint, 2n * SOL);
    w.local.faults.apply({ kind: "programLayout", layout: "v3" });
    expect(w.local.faults.list()).toContainEqual({ kind: "programLayout", layout: "v3" });
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(sweptOf(a.tokenId)).toBe(0n);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    const [item] = listSetAside(w.db);
    expect(item).toMatchObject({ mint: a.mint, job: "sweep", retryAt: null });
    expect(item!.reason).toMatch(/^program-changed: /);
    expect(jobHealth(w.db, Date.now()).setAside).toEqual({ tokens: 1, stopped: 1 });
    // a second run changes nothing: still stopped, still nothing credited
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(sweptOf(a.tokenId)).toBe(0n);
    w.local.faults.apply({ kind: "clear" });
    expect(w.local.faults.list()).toEqual([]);
    w.checkRelations();
  });

  test("a sharing config without the service's key: the token stops accruing, says why, and nothing is credited", async () => {
    const b = w.launch([{ handle: "bob", bps: 10_000 }]);
    const stranger = Keypair.generate().publicKey.toBase58();
    w.local.node.fund(Keypair.generate().publicKey, 1n); // unrelated traffic, nothing to do with b
    w.local.node.shareCreatorFees(b.mint, [{ address: stranger, shareBps: 10_000 }]);
    w.local.node.advanceSlots(1);
    w.trade(b.mint, 3n * SOL);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(sweptOf(b.tokenId)).toBe(0n);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    const record = tokenDetail(w.db, b.mint)!.detail;
    expect(record.feeSharing).toMatchObject({ status: "stopped", isSharingConfig: true, serviceShareBps: 0 });
    expect(record.feeSharing!.reason).toMatch(/not name the service's key as a shareholder/);
    // nothing waiting for the service is shown as unswept
    expect(BigInt(record.vaultLamports)).toBe(0n);
    const admin = listFeeSharing(w.db);
    expect(admin.map((i) => [i.mint, i.status])).toEqual([[b.mint, "stopped"]]);
    w.checkRelations();
  });
});
