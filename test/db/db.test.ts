import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { openDatabase } from "../../db/client";
import { settings, tokens, ledgerEntries } from "../../db/schema";
import { accounts, post } from "../../src/ledger/ledger";
import { immediate } from "../../db/transaction";

function insertToken(db: ReturnType<typeof openDatabase>, mint: string, swept: bigint) {
  return db
    .insert(tokens)
    .values({
      mint,
      name: "Big",
      symbol: "BIG",
      metadataUri: "https://example.test/m.json",
      creatorIndex: 1,
      creator: "C",
      creatorVault: "V",
      deployer: "D",
      launchSignature: "S",
      launchedAtMs: 1,
      platformBps: 100,
      sweptLamports: swept,
      vaultCheckedAtMs: 1,
    })
    .returning()
    .get();
}

describe("database", () => {
  test("opens in WAL with synchronous FULL, foreign keys and a busy timeout", () => {
    const dir = `${import.meta.dir}/../../data/test-${crypto.randomUUID()}`;
    const db = openDatabase(`${dir}/service.db`);
    const c = db.$client;
    expect((c.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    expect(Number((c.query("PRAGMA synchronous").get() as { synchronous: bigint }).synchronous)).toBe(2);
    expect(Number((c.query("PRAGMA foreign_keys").get() as { foreign_keys: bigint }).foreign_keys)).toBe(1);
    expect(Number((c.query("PRAGMA busy_timeout").get() as { timeout: bigint }).timeout)).toBeGreaterThan(0);
    c.close();
    require("node:fs").rmSync(dir, { recursive: true, force: true });
  });

  test("lamport columns round-trip 2^53+1 and 2^63-1 exactly", () => {
    const db = openDatabase(":memory:");
    for (const [mint, value] of [
      ["M1", 2n ** 53n + 1n],
      ["M2", 2n ** 63n - 1n],
    ] as const) {
      db.delete(tokens).run();
      insertToken(db, mint, value);
      const row = db.select().from(tokens).where(eq(tokens.mint, mint)).get()!;
      expect(row.sweptLamports).toBe(value);
      expect(typeof row.sweptLamports).toBe("bigint");
      // The generated fees column adds vault (0) exactly, no float on the way.
      expect(row.feesLamports).toBe(value);
    }
  });

  test("migrations are idempotent: reopening applies nothing twice", () => {
    const dir = `${import.meta.dir}/../../data/test-${crypto.randomUUID()}`;
    openDatabase(`${dir}/a.db`).$client.close();
    const db = openDatabase(`${dir}/a.db`);
    db.insert(settings).values({ key: "k", value: "v" }).run();
    expect(db.select().from(settings).all()).toHaveLength(1);
    db.$client.close();
    require("node:fs").rmSync(dir, { recursive: true, force: true });
  });

  test("ledger entries and postings refuse UPDATE and DELETE", () => {
    const db = openDatabase(":memory:");
    immediate(db, () =>
      post(db, "k1", "sweep", 1, [
        { account: accounts.sweepSource("M"), amount: -10n },
        { account: accounts.platform(), amount: 10n },
      ]),
    );
    expect(() => db.update(ledgerEntries).set({ amount: 5n }).run()).toThrow(/append-only/);
    expect(() => db.delete(ledgerEntries).run()).toThrow(/append-only/);
    expect(() => db.$client.exec("UPDATE ledger_postings SET kind = 'x'")).toThrow(/append-only/);
    expect(() => db.$client.exec("DELETE FROM ledger_postings")).toThrow(/append-only/);
  });
});
