/**
 * Recipient.creditedLamports comes from a projection of the ledger (`ledger_recipient_credits`, kept
 * by a trigger on every entry): what a list or detail shows must equal the sums of the sweep
 * entries, whatever moved since (pins), on a database migrated with credits already in it, and a
 * projection that drifted is refused rather than served.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { immediate } from "../../db/transaction";
import * as schema from "../../db/schema";
import type { Db } from "../../db/client";
import { recordSignIn } from "../../src/identity/identity";
import { recipientCredits } from "../../src/ledger/figures";
import { accounts, post } from "../../src/ledger/ledger";
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

describe("recipient credits", () => {
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

  test("migrating a database that already has credits fills the projection from its entries", () => {
    const dir = mkdtempSync(join(tmpdir(), "recipient-credits-"));
    dirs.push(dir);
    // The migrations as they were before this one: the same folder without its last entry.
    const before = join(dir, "migrations-before");
    const all = join(import.meta.dir, "../../db/migrations");
    cpSync(all, before, { recursive: true });
    const journalPath = join(before, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    const last = journal.entries.pop();
    expect(last.tag).toBe("0009_recipient_credits");
    writeFileSync(journalPath, JSON.stringify(journal));

    const client = new Database(join(dir, "service.db"), { create: true, safeIntegers: true, strict: true });
    const db = drizzle({ client, schema }) as Db;
    migrate(db, { migrationsFolder: before });
    const { tokenId } = recordFixtureLaunch(db, { recipients: [{ handle: "alice", bps: 10_000 }] }, 1_000);
    const other = recordFixtureLaunch(
      db,
      {
        mint: "11111111111111111111111111111114",
        creatorIndex: 2,
        launchSignature: "L2",
        recipients: [
          { handle: "alice", bps: 5_000 },
          { handle: "carol", bps: 5_000 },
        ],
      },
      1_000,
    ).tokenId;
    // The books as the earlier code wrote them: sweep credits to handles, a pin moving one out.
    immediate(db, () => {
      post(db, "sweep:1", "sweep", 2_000, [
        { account: accounts.sweepSource(MINT), amount: -700n, tokenId },
        { account: accounts.handle("alice"), amount: 700n, tokenId, handle: "alice" },
      ]);
      post(db, "sweep:2", "sweep", 2_000, [
        { account: accounts.sweepSource("m2"), amount: -90n, tokenId: other },
        { account: accounts.handle("alice"), amount: 40n, tokenId: other, handle: "alice" },
        { account: accounts.handle("carol"), amount: 50n, tokenId: other, handle: "carol" },
      ]);
      post(db, "pin:alice", "pin", 3_000, [
        { account: accounts.handle("alice"), amount: -700n, tokenId, handle: "alice" },
        { account: accounts.user("u-alice"), amount: 700n, tokenId, handle: "alice" },
      ]);
    });

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
    expect(recipientCredits(db, other)).toEqual(
      new Map([
        ["alice", 40n],
        ["carol", 50n],
      ]),
    );
    client.close();
  });
});
