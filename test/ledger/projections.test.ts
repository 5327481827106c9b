/**
 * The ledger's projections, kept by triggers on every entry: Recipient.creditedLamports
 * (`ledger_recipient_credits`) and the account record's figures and per-token credits
 * (`ledger_account_figures`, `ledger_account_token_credits`). What the pages show must equal the
 * sums of the entries, whatever moved since (pins, payouts), also on a database migrated with books
 * already in it; a projection that drifted is refused rather than served.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import * as schema from "../../db/schema";
import type { Db } from "../../db/client";
import { recordSignIn } from "../../src/identity/identity";
import { accountFigures, creditsByToken, recipientCredits } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { confirmSweep, recordSweepsSent, type BuybackPolicy } from "../../src/sweeps/service";
import { recordFixtureLaunch } from "../helpers/launch";
import { testService, type TestService } from "../helpers/service";

const noBuyback: BuybackPolicy = { platformBuybackBps: 0, platformTokenMint: null };
const MINT = "So11111111111111111111111111111111111111112";

let service: TestService | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await service?.cleanup();
  service = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sweep(db: Db, tokenId: number, totalLamports: bigint, signature: string) {
  const [sweepId] = recordSweepsSent(db, [{ tokenId, signature, lastValidBlockHeight: 50n, atMs: 2_000 }]);
  return confirmSweep(db, { sweepId: sweepId!, totalLamports, atMs: 3_000, buyback: noBuyback });
}

const postingCount = (db: Db) =>
  Number(db.$client.query<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM ledger_postings").get()!.n);

describe("ledger projections", () => {
  test("list and detail show each recipient's sweep credits, and a pin moves none of them", async () => {
    service = testService();
    const db = service.ctx.db;
    const { tokenId } = recordFixtureLaunch(
      db,
      {
        platformBps: 1000,
        recipients: [
          { handle: "Alice", bps: 3333 },
          { handle: "bob", bps: 6667 },
        ],
      },
      1_000,
    );
    sweep(db, tokenId, 1_000_000_007n, "S1");
    sweep(db, tokenId, 500_000_000n, "S2");
    // Pinning alice moves her handle's money to her user id: a ledger posting that names her
    // handle on both sides, which must not count as a credit.
    recordSignIn(
      db,
      { idpUserId: "u-alice", displayHandle: "Alice", name: "Alice", avatarUrl: "", followers: 0 },
      4_000,
    );
    sweep(db, tokenId, 3n, "S3");

    // Split: platform floor(T x 10%), the rest by bps, floored (money-services pins the arithmetic).
    const expected = { alice: 299_970_002n + 149_985_000n + 0n, bob: 600_030_004n + 300_015_000n + 2n };
    expect(recipientCredits(db, tokenId)).toEqual(new Map(Object.entries(expected)));

    const detail = await service.json(`/api/tokens/${MINT}`);
    expect(detail.status).toBe(200);
    const list = await service.json("/api/tokens?sort=fees");
    for (const recipients of [detail.body.recipients, list.body.tokens[0].recipients]) {
      expect(
        recipients.map((r: { handle: string; creditedLamports: string }) => [r.handle, r.creditedLamports]),
      ).toEqual([
        ["alice", expected.alice.toString()],
        ["bob", expected.bob.toString()],
      ]);
    }
    verifyLedger(db);
  });

  test("a stored credit that drifted from its entries is refused: the audit throws and the next sweep rolls back", () => {
    service = testService();
    const db = service.ctx.db;
    const { tokenId } = recordFixtureLaunch(db, { recipients: [{ handle: "alice", bps: 10_000 }] }, 1_000);
    sweep(db, tokenId, 1_000n, "S1");
    verifyLedger(db);
    db.$client.exec("UPDATE ledger_recipient_credits SET credited_lamports = credited_lamports + 1");
    expect(() => verifyLedger(db)).toThrow("recipient credits of token");
    const before = postingCount(db);
    expect(() => sweep(db, tokenId, 2_000n, "S2")).toThrow("recipient credits of token");
    expect(postingCount(db)).toBe(before);
    expect(recipientCredits(db, tokenId).get("alice")).toBe(1_000n);
  });

  test("an account's stored figures that drifted are refused: the audit throws, the next posting rolls back, the record is not served", async () => {
    service = testService();
    const db = service.ctx.db;
    const { tokenId } = recordFixtureLaunch(db, { recipients: [{ handle: "alice", bps: 10_000 }] }, 1_000);
    sweep(db, tokenId, 1_000n, "S1");
    const record = await service.json("/api/idp/alice");
    expect(record.status).toBe(200);
    expect(record.body.creditedLamports).toBe("1000");
    verifyLedger(db);

    db.$client.exec("UPDATE ledger_account_figures SET paid_lamports = paid_lamports + 1");
    expect(() => verifyLedger(db)).toThrow("stored figures of account");
    expect(() => verifyLedger(db, { accountFigures: "identities" })).toThrow("stored figures of account");
    const before = postingCount(db);
    expect(() => sweep(db, tokenId, 2_000n, "S2")).toThrow("stored figures of account");
    expect(postingCount(db)).toBe(before);
    const refused = await service.call("/api/idp/alice");
    expect(refused.status).toBe(500);
    expect(await refused.json()).toEqual({ error: expect.any(String) });

    // Two figures drifting so that they still add up are caught by the recomputation alone.
    db.$client.exec(
      "UPDATE ledger_account_figures SET paid_lamports = paid_lamports - 1 + 5, credited_lamports = credited_lamports + 5",
    );
    db.$client.exec("UPDATE ledger_account_token_credits SET credited_lamports = credited_lamports + 5");
    expect(() => verifyLedger(db, { accountFigures: "identities" })).not.toThrow();
    expect(() => verifyLedger(db)).toThrow("stored figures of account");
  });

  test("migrating a database that already has books fills the projections from its entries", () => {
    const dir = mkdtempSync(join(tmpdir(), "recipient-credits-"));
    dirs.push(dir);
    // The migrations as they were before the projections: the same folder up to 0008.
    const before = join(dir, "migrations-before");
    const all = join(import.meta.dir, "../../db/migrations");
    cpSync(all, before, { recursive: true });
    const journalPath = join(before, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    const kept = journal.entries.findIndex((e: { tag: string }) => e.tag === "0008_set_aside");
    // The two projections come right after it (later migrations are left out with them).
    expect(journal.entries.slice(kept + 1, kept + 3).map((e: { tag: string }) => e.tag)).toEqual([
      "0009_recipient_credits",
      "0010_account_figures",
    ]);
    journal.entries = journal.entries.slice(0, kept + 1);
    writeFileSync(journalPath, JSON.stringify(journal));

    const client = new Database(join(dir, "service.db"), { create: true, safeIntegers: true, strict: true });
    const db = drizzle({ client, schema }) as Db;
    migrate(db, { migrationsFolder: before });
    // Launches as that schema held them (today's launch record writes columns added since).
    const launchThen = (mint: string, creatorIndex: number, recipients: [string, number][]): number => {
      const id = client
        .query<{ id: bigint }, [string, number, string]>(
          `INSERT INTO tokens (mint, name, symbol, metadata_uri, creator_index, creator, creator_vault, deployer,
             launch_signature, launched_at_ms, platform_bps, vault_checked_at_ms)
           VALUES (?, 'Fixture', 'FIX', 'local://m', ?, '11111111111111111111111111111112',
             '11111111111111111111111111111113', 'D', ?, 1000, 0, 1000) RETURNING id`,
        )
        .get(mint, creatorIndex, `L${creatorIndex}`)!.id;
      recipients.forEach(([handle, bps], position) => {
        client
          .query(
            "INSERT INTO token_recipients (token_id, position, handle, display_handle, bps) VALUES (?, ?, ?, ?, ?)",
          )
          .run(id, position, handle, handle, bps);
        client
          .query("INSERT OR IGNORE INTO handles (handle, display_handle, name, avatar_url) VALUES (?, ?, ?, '')")
          .run(handle, handle, handle);
      });
      return Number(id);
    };
    const tokenId = launchThen(MINT, 1, [["alice", 10_000]]);
    const other = launchThen("11111111111111111111111111111114", 2, [
      ["alice", 5_000],
      ["carol", 5_000],
    ]);
    // The books as the earlier code wrote them (no projection tables yet): sweep credits to
    // handles, a pin moving alice's out, then her payouts (one failed) and a burn order.
    const book = (key: string, kind: string, legs: [string, string, bigint, number | null, string | null][]) => {
      const postingId = client
        .query<{ id: bigint }, [string, string]>(
          "INSERT INTO ledger_postings (command_key, kind, at_ms) VALUES (?, ?, 1000) RETURNING id",
        )
        .get(key, kind)!.id;
      for (const [accountKind, ref, amount, token, handle] of legs) {
        client
          .query("INSERT OR IGNORE INTO ledger_accounts (kind, ref, balance) VALUES (?, ?, 0)")
          .run(accountKind, ref);
        const accountId = client
          .query<{ id: bigint }, [string, string]>("SELECT id FROM ledger_accounts WHERE kind = ? AND ref = ?")
          .get(accountKind, ref)!.id;
        client
          .query("INSERT INTO ledger_entries (posting_id, account_id, amount, token_id, handle) VALUES (?, ?, ?, ?, ?)")
          .run(postingId, accountId, amount, token, handle);
        client.query("UPDATE ledger_accounts SET balance = balance + ? WHERE id = ?").run(amount, accountId);
      }
    };
    book("sweep:1", "sweep", [
      ["sweep_source", "old-1", -700n, tokenId, null],
      ["handle", "alice", 700n, tokenId, "alice"],
    ]);
    book("sweep:2", "sweep", [
      ["sweep_source", "old-2", -90n, other, null],
      ["handle", "alice", 40n, other, "alice"],
      ["handle", "carol", 50n, other, "carol"],
    ]);
    book("pin:alice", "pin", [
      ["handle", "alice", -700n, tokenId, "alice"],
      ["user", "u-alice", 700n, tokenId, "alice"],
      ["handle", "alice", -40n, other, "alice"],
      ["user", "u-alice", 40n, other, "alice"],
    ]);
    book("payout_reserve:1", "payout_reserve", [
      ["user", "u-alice", -100n, null, null],
      ["payout", "1", 100n, null, null],
    ]);
    book("payout_fail:1", "payout_fail", [
      ["payout", "1", -100n, null, null],
      ["user", "u-alice", 100n, null, null],
    ]);
    book("payout_reserve:2", "payout_reserve", [
      ["user", "u-alice", -200n, null, null],
      ["payout", "2", 200n, null, null],
    ]);
    book("burn_order:1", "burn_order", [
      ["user", "u-alice", -50n, null, null],
      ["burn_pending", MINT, 50n, null, null],
    ]);

    migrate(db, { migrationsFolder: all });
    const stored = client
      .query<{ tokenId: bigint; handle: string; credited: bigint }, []>(
        "SELECT token_id AS tokenId, handle, credited_lamports AS credited FROM ledger_recipient_credits ORDER BY token_id, handle",
      )
      .all()
      .map((r) => [Number(r.tokenId), r.handle, BigInt(r.credited)]);
    expect(stored).toEqual([
      [tokenId, "alice", 700n],
      [other, "alice", 40n],
      [other, "carol", 50n],
    ]);
    expect(accountFigures(db, "user", "u-alice")).toEqual({
      creditedLamports: 740n,
      paidLamports: 200n,
      burnedLamports: 50n,
      balanceLamports: 490n,
    });
    // The handle keeps its credits as history; its money moved to the user id.
    expect(accountFigures(db, "handle", "alice")).toEqual({
      creditedLamports: 740n,
      paidLamports: 0n,
      burnedLamports: 0n,
      balanceLamports: 0n,
    });
    expect(creditsByToken(db, "user", "u-alice")).toEqual(
      new Map([
        [tokenId, 700n],
        [other, 40n],
      ]),
    );
    expect(creditsByToken(db, "handle", "carol")).toEqual(new Map([[other, 50n]]));
    // Every projection agrees with a recomputation from the entries.
    verifyLedger(db);
    client.close();
  });
});
