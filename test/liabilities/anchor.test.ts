/**
 * Anchoring on the local chain under faults: a memo transaction that never lands is given up only
 * once provably expired and then prepared again, so every snapshot ends up anchored exactly once,
 * by a treasury memo naming its root, total and time; a crash after the signature was saved
 * resends the same bytes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { recordSignIn } from "../../src/identity/identity";
import { anchorSnapshots, readAnchorMemo } from "../../src/liabilities/anchor";
import { snapshotAt } from "../../src/liabilities/service";
import { takeSnapshot } from "../../src/liabilities/snapshots";
import { moneyHarness, type MoneyHarness } from "../jobs/harness";

let h: MoneyHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe("anchoring liability roots", () => {
  test("a dropped memo is re-prepared after it provably expired; the snapshot is anchored once with its own memo", async () => {
    h = await moneyHarness();
    const db = h.service.ctx.db;
    const chain = h.chain.services;
    const t = await h.launch([{ handle: "alice", bps: 10_000 }]);
    await h.trade(t.mint, 2_000_000_000n);
    await h.run("sweep");
    const first = snapshotAt(db, null)!;
    expect(first.anchorSignature).toEqual(expect.any(String));

    // Alice signs in (her credit moves to her user id: the books moved). The payouts run has
    // nothing to pay, takes a snapshot, and the node drops its memo: the run waits, sees it
    // expire, and leaves it for the next pass.
    recordSignIn(
      db,
      { idpUserId: "u-alice", displayHandle: "alice", name: "alice", avatarUrl: "", followers: 0 },
      Date.now(),
    );
    h.local.faults.dropNextSends(1);
    await h.run("payouts");
    const second = snapshotAt(db, null)!;
    expect(second.id).toBeGreaterThan(first.id);
    expect(second.anchorSignature).toBeNull();
    expect(db.$client.query("SELECT anchor_signature FROM liability_snapshots WHERE id = ?").get(second.id)).toEqual({
      anchor_signature: null,
    });

    // The next pass prepares it again and it lands.
    expect(await anchorSnapshots(db, chain, { nowMs: Date.now })).toBe(1);
    const anchored = snapshotAt(db, null)!;
    expect(anchored.id).toBe(second.id);
    expect(anchored.anchorSignature).toEqual(expect.any(String));
    expect(await readAnchorMemo(chain, anchored.anchorSignature!)).toBe(
      `liabilities:${anchored.root}:${anchored.totalLamports}:${new Date(anchored.atMs).toISOString()}`,
    );
    // Nothing left to anchor: a further pass sends nothing.
    expect(await anchorSnapshots(db, chain, { nowMs: Date.now })).toBe(0);
    expect(
      db.$client.query("SELECT COUNT(*) AS n FROM liability_snapshots WHERE anchored_at_ms IS NULL").get(),
    ).toEqual({ n: 0n });
  }, 60_000);

  test("a crash after the memo's signature was saved: the next pass sends those same bytes", async () => {
    h = await moneyHarness();
    const db = h.service.ctx.db;
    const chain = h.chain.services;
    const t = await h.launch([{ handle: "bob", bps: 10_000 }]);
    await h.trade(t.mint, 2_000_000_000n);
    await h.run("sweep");
    recordSignIn(
      db,
      { idpUserId: "u-bob", displayHandle: "bob", name: "bob", avatarUrl: "", followers: 0 },
      Date.now(),
    );
    const taken = takeSnapshot(db, Date.now());
    expect(taken.taken).toBe(true);
    const snapshot = snapshotAt(db, null)!;
    // As if the process died between saving the prepared memo and sending it.
    const { memo } = db.$client.query("SELECT memo FROM liability_snapshots WHERE id = ?").get(snapshot.id) as {
      memo: string;
    };
    const prepared = await chain.sender.prepare(
      [chain.launchProgram.buildMemo(memo, chain.treasury.publicKey)],
      chain.treasury,
      [],
      { commandKey: { kind: "anchor", anchorId: snapshot.id } },
    );
    db.$client
      .query(
        "UPDATE liability_snapshots SET anchor_signature = ?, anchor_last_valid_block_height = ?, anchor_wire = ? WHERE id = ?",
      )
      .run(prepared.signature, prepared.lastValidBlockHeight, prepared.wire, snapshot.id);
    expect(await chain.reader.getTransaction(prepared.signature)).toBeNull();
    expect(await anchorSnapshots(db, chain, { nowMs: Date.now })).toBe(1);
    expect(snapshotAt(db, null)!.anchorSignature).toBe(prepared.signature);
    expect(await readAnchorMemo(chain, prepared.signature)).toBe(memo);
    // The books did not move since: no new snapshot, nothing new to anchor.
    expect(takeSnapshot(db, Date.now())).toEqual({ taken: false, reason: "unchanged" });
    expect(await anchorSnapshots(db, chain, { nowMs: Date.now })).toBe(0);
  }, 60_000);
});
