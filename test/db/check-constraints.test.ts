/**
 * CHECK constraints (migration 0024): a status, kind, source or job column holds only the values the
 * code's unions name, and amounts and counts are never negative, also for a raw write that bypasses
 * the types (a literal in a statement, a script, a hand-run fix). SQLite adds a CHECK only by
 * rebuilding the table: a database that held rows of every status keeps every row, rowid, index and
 * trigger, and the ledger's append-only triggers still refuse edits.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableName } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { closeDatabase, type Db, openDatabase } from "../../db/client";
import * as schema from "../../db/schema";
import { immediate } from "../../db/transaction";
import { HALTING_KINDS, WARNING_KINDS } from "../../src/custody/incidents";
import { post } from "../../src/ledger/ledger";

type Value = string | number | bigint | Uint8Array | null;
type Row = Record<string, Value>;

const PARENT_USER = "u-parent";
const PARENT_TOKEN = 1;
const PARENT_SNAPSHOT = 1;
const PARENT_BUY = 1000;
const PARENT_SWEEP = 500;

/** What each table must refuse: its enum-like columns, and the amounts and counts never below zero. */
const CONSTRAINED: Record<string, { oneOf: string[]; notNegative: string[] }> = {
  burn_buys: { oneOf: ["status"], notNegative: ["lamports", "spent_lamports", "rent_lamports", "token_amount"] },
  burn_orders: { oneOf: ["source", "status"], notNegative: ["lamports"] },
  burns: { oneOf: ["source"], notNegative: ["lamports", "token_amount"] },
  chain_transaction_totals: {
    oneOf: ["job"],
    notNegative: [
      "prepared",
      "sends",
      "rebroadcasts",
      "landed",
      "failed",
      "lapsed",
      "replacements",
      "priority_fee_lamports",
    ],
  },
  chain_transactions: {
    oneOf: ["job", "state"],
    notNegative: ["compute_unit_limit", "compute_unit_price_micro_lamports", "attempt", "send_count"],
  },
  custody_incidents: { oneOf: ["kind"], notNegative: [] },
  feed_events: { oneOf: ["type"], notNegative: [] },
  identities: { oneOf: ["routing"], notNegative: ["followers"] },
  launch_intents: { oneOf: ["status"], notNegative: [] },
  ledger_accounts: { oneOf: ["kind"], notNegative: [] },
  ledger_postings: { oneOf: ["kind"], notNegative: [] },
  liability_leaves: { oneOf: ["account_kind"], notNegative: ["lamports"] },
  payout_events: { oneOf: ["status"], notNegative: [] },
  payouts: { oneOf: ["kind", "status"], notNegative: ["lamports"] },
  reconciliation_items: { oneOf: ["status"], notNegative: ["slot"] },
  reconciliations: { oneOf: ["reason", "status"], notNegative: ["scanned", "total", "applied", "unknown"] },
  set_aside: { oneOf: ["job"], notNegative: ["failures"] },
  solvency_snapshots: { oneOf: [], notNegative: ["treasury_lamports", "owed_lamports"] },
  sweeps: { oneOf: ["status"], notNegative: ["total_lamports", "platform_lamports"] },
  treasury_credits: { oneOf: [], notNegative: ["lamports"] },
  webhook_deliveries: { oneOf: ["status"], notNegative: ["attempts"] },
  withdrawals: { oneOf: ["status"], notNegative: ["lamports", "attempt"] },
};

/** A legal row of each constrained table, the i-th (unique keys differ by i). */
const ROWS: Record<string, (i: number) => Row> = {
  burn_buys: (i) => ({
    mint: "M",
    signature: `buy-${i}`,
    last_valid_block_height: 1,
    status: "sent",
    lamports: 10,
    spent_lamports: 9,
    rent_lamports: 1,
    token_amount: 5,
    created_at_ms: i,
  }),
  burn_orders: (i) => ({
    source: "recipient",
    idp_user_id: PARENT_USER,
    mint: "M",
    lamports: 10,
    sweep_id: PARENT_SWEEP,
    status: "pending",
    created_at_ms: i,
  }),
  burns: (i) => ({
    buy_id: PARENT_BUY,
    source: "recipient",
    mint: "M",
    signature: `burn-${i}`,
    lamports: 10,
    token_amount: 5,
    landed_at_ms: i,
  }),
  chain_transaction_totals: () => ({
    job: "sweep",
    prepared: 1,
    sends: 2,
    rebroadcasts: 1,
    landed: 1,
    failed: 0,
    lapsed: 0,
    replacements: 0,
    priority_fee_lamports: 5,
  }),
  chain_transactions: (i) => ({
    signature: `tx-${i}`,
    job: "sweep",
    wire: new Uint8Array([i]),
    last_valid_block_height: 1,
    sent_from_slot: 1,
    compute_unit_limit: 200_000,
    compute_unit_price_micro_lamports: 1,
    attempt: 0,
    state: "live",
    send_count: 1,
    prepared_at_ms: i,
  }),
  custody_incidents: (i) => ({ kind: "shortfall", detail: "d", halts: 1, at_ms: i }),
  feed_events: (i) => ({ at_us: i + 1, type: "launch", ref_id: i }),
  identities: (i) => ({
    idp_user_id: `u-${i}`,
    handle: `h${i}`,
    display_handle: `H${i}`,
    name: "N",
    avatar_url: "",
    followers: 3,
    routing: "hold",
    created_at_ms: i,
  }),
  launch_intents: (i) => ({
    id: `li-${i}`,
    wallet: "W",
    mint: `mint-${i}`,
    digest: "d",
    draft: "{}",
    creator_index: i,
    creator: "C",
    status: "prepared",
    created_at_ms: i,
    expires_at_ms: i + 1,
  }),
  ledger_accounts: (i) => ({ kind: "user", ref: `r-${i}`, balance: 0 }),
  ledger_postings: (i) => ({ command_key: `k-${i}`, kind: "sweep", at_ms: i }),
  liability_leaves: (i) => ({
    snapshot_id: PARENT_SNAPSHOT,
    account_kind: "user",
    account_ref: `a-${i}`,
    nonce: new Uint8Array([1]),
    lamports: 5,
    leaf_hash: new Uint8Array([2]),
  }),
  payout_events: (i) => ({ payout_id: i, status: "queued", handle: "h" }),
  payouts: (i) => ({
    idp_user_id: PARENT_USER,
    lamports: 10,
    wallet: "W",
    kind: "claim",
    status: "queued",
    created_at_ms: i,
  }),
  reconciliation_items: (i) => ({
    signature: `ri-${i}`,
    reconciliation_id: 1,
    position: i,
    slot: 7,
    status: "pending",
  }),
  reconciliations: (i) => ({
    reason: "start",
    status: "scanning",
    started_at_ms: i,
    scanned: 1,
    total: 1,
    applied: 0,
    unknown: 0,
  }),
  set_aside: (i) => ({ mint: `m-${i}`, job: "sweep", reason: "r", failures: 1, since_ms: i }),
  solvency_snapshots: (i) => ({ at_ms: i, treasury_lamports: 10, owed_lamports: 5, trigger: "hourly" }),
  sweeps: (i) => ({
    token_id: PARENT_TOKEN,
    signature: `sw-${i}`,
    last_valid_block_height: 1,
    status: "sent",
    total_lamports: 10,
    platform_lamports: 1,
    created_at_ms: i,
  }),
  treasury_credits: (i) => ({ signature: `tc-${i}`, slot: 1, lamports: 5, recorded_at_ms: i }),
  webhook_deliveries: (i) => ({ webhook_id: "w", at_us: i, status: "pending", attempts: 0, next_attempt_at_ms: 1 }),
  withdrawals: (i) => ({ lamports: 10, wallet: "W", reason: "r", actor: "a", status: "queued", created_at_ms: i }),
};

/** Tables whose rows never change (triggers refuse any UPDATE before a CHECK is reached). */
const APPEND_ONLY = new Set(["ledger_postings", "payout_events"]);

const tablesByName = new Map<string, SQLiteTable>(
  Object.values(schema).map((table: SQLiteTable) => [getTableName(table), table]),
);

/** The values the schema's `enum` names for a column: what the code's types let it write. */
function enumValues(table: string, column: string): readonly string[] {
  const found = getTableConfig(tablesByName.get(table)!).columns.find((c) => c.name === column);
  const values = (found as { enumValues?: readonly string[] } | undefined)?.enumValues;
  if (!values?.length) throw new Error(`${table}.${column} has no enum in db/schema.ts`);
  return values;
}

function insertParents(client: Database): void {
  client.exec(`INSERT INTO identities (idp_user_id, handle, display_handle, name, avatar_url, created_at_ms)
               VALUES ('${PARENT_USER}', 'p', 'p', 'P', '', 0)`);
  client.exec(`INSERT INTO tokens (id, mint, name, symbol, metadata_uri, creator_index, creator, creator_vault, deployer,
                 launch_signature, launched_at_ms, platform_bps, vault_checked_at_ms)
               VALUES (${PARENT_TOKEN}, 'M', 'T', 'T', 'local://m', 1000, 'C', 'V', 'D', 'L', 1, 0, 1)`);
  client.exec(`INSERT INTO liability_snapshots (id, at_ms, root, total_lamports, leaf_count, posting_id, memo)
               VALUES (${PARENT_SNAPSHOT}, 1, 'r', 0, 0, 0, 'm')`);
  client.exec(`INSERT INTO burn_buys (id, mint, signature, last_valid_block_height, status, lamports, created_at_ms)
               VALUES (${PARENT_BUY}, 'M', 'parent-buy', 1, 'confirmed', 10, 1)`);
  client.exec(`INSERT INTO sweeps (id, token_id, signature, last_valid_block_height, status, created_at_ms)
               VALUES (${PARENT_SWEEP}, ${PARENT_TOKEN}, 'parent-sweep', 1, 'confirmed', 1)`);
  // Rows of tables not rebuilt that reference rebuilt ones (identities), checked again at commit.
  client.exec(`INSERT INTO handles (handle, display_handle, name, avatar_url, idp_user_id)
               VALUES ('p', 'p', 'P', '', '${PARENT_USER}')`);
  client.exec(
    `INSERT INTO sessions (id, idp_user_id, created_at_ms, expires_at_ms) VALUES ('s', '${PARENT_USER}', 0, 1)`,
  );
}

function insert(client: Database, table: string, row: Row): void {
  const columns = Object.keys(row);
  client
    .query(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
    .run(...Object.values(row));
}

/** The error a write raised, or null when it was accepted. */
function refusal(write: () => void): { code?: string; message: string } | null {
  try {
    write();
    return null;
  } catch (error) {
    return error as { code?: string; message: string };
  }
}

function checkNames(client: Database): string[] {
  const tables = client
    .query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL")
    .all();
  return tables.flatMap((t) => [...t.sql.matchAll(/CONSTRAINT "(\w+)" CHECK/g)].map((m) => m[1]!)).sort();
}

function expectedCheckNames(): string[] {
  return Object.entries(CONSTRAINED)
    .flatMap(([table, { oneOf, notNegative }]) => [
      ...oneOf.map((column) => `${table}_${column}`),
      ...notNegative.map((column) => `${table}_${column}_not_negative`),
    ])
    .concat("custody_incidents_halts")
    .sort();
}

describe("CHECK constraints", () => {
  test("the migrated schema holds exactly the listed CHECKs", () => {
    const db = openDatabase(":memory:");
    try {
      expect(checkNames(db.$client)).toEqual(expectedCheckNames());
    } finally {
      closeDatabase(db);
    }
  });

  test("the schema's list of incident kinds is the code's halting and warning kinds", () => {
    expect(enumValues("custody_incidents", "kind")).toEqual([...HALTING_KINDS, ...WARNING_KINDS]);
  });

  for (const [table, { oneOf, notNegative }] of Object.entries(CONSTRAINED)) {
    test(`${table}: every value the code writes is stored; any other, and a negative amount, are refused`, () => {
      const db = openDatabase(":memory:");
      const client = db.$client;
      try {
        insertParents(client);
        let i = 0;
        for (const column of oneOf) {
          for (const value of enumValues(table, column))
            insert(client, table, { ...ROWS[table]!(i++), [column]: value });
        }
        if (oneOf.length === 0) insert(client, table, ROWS[table]!(i++));
        const stored = () => (client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        const before = stored();
        const illegal: [column: string, value: Value, check: string][] = [
          ...oneOf.map((column): [string, Value, string] => [column, "not-a-value", `${table}_${column}`]),
          ...notNegative.map((column): [string, Value, string] => [column, -1, `${table}_${column}_not_negative`]),
        ];
        if (table === "custody_incidents") illegal.push(["halts", 2, "custody_incidents_halts"]);
        for (const [column, value, check] of illegal) {
          const inserted = refusal(() => insert(client, table, { ...ROWS[table]!(i++), [column]: value }));
          expect({ column, code: inserted?.code, message: inserted?.message }).toEqual({
            column,
            code: "SQLITE_CONSTRAINT_CHECK",
            message: `CHECK constraint failed: ${check}`,
          });
          const updated = refusal(() => client.query(`UPDATE ${table} SET ${column} = ?`).run(value));
          const expected = APPEND_ONLY.has(table) ? "append-only" : `CHECK constraint failed: ${check}`;
          expect({ column, message: updated?.message }).toEqual({ column, message: expect.stringContaining(expected) });
        }
        expect(stored()).toBe(before);
      } finally {
        closeDatabase(db);
      }
    });
  }
});

// ---------------------------------------------------------------- the upgrade

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The migrations folder as it was before migration `next` (whose last entry is `last`). */
function migrationsBefore(dir: string, next: string, last: string): string {
  const folder = join(dir, `migrations-before-${next}`);
  cpSync(join(import.meta.dir, "../../db/migrations"), folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter((entry) => entry.tag < next);
  expect(journal.entries.at(-1)?.tag).toBe(last);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

/** Rows of every legal value of each constrained table (the longest enum of the table sets the count). */
function fillEveryValue(client: Database): void {
  for (const [table, { oneOf }] of Object.entries(CONSTRAINED)) {
    const lists = oneOf.map((column) => [column, enumValues(table, column)] as const);
    const count = Math.max(2, ...lists.map(([, values]) => values.length));
    for (let i = 0; i < count; i++) {
      const row = ROWS[table]!(i);
      for (const [column, values] of lists) row[column] = values[i % values.length]!;
      insert(client, table, row);
    }
  }
  // Books that reference the ledger tables being rebuilt: posting k-0 (a sweep) moves 5 from the
  // sweep source r-0 to the user r-2 (ACCOUNT_KINDS order); the triggers keep the sums.
  client.exec(`INSERT INTO ledger_entries (posting_id, account_id, amount, token_id, handle)
               SELECT p.id, a.id, CASE a.ref WHEN 'r-2' THEN 5 ELSE -5 END, ${PARENT_TOKEN}, 'h'
                 FROM ledger_postings p, ledger_accounts a WHERE p.command_key = 'k-0' AND a.ref IN ('r-0', 'r-2')`);
  client.exec("UPDATE ledger_accounts SET balance = entry_sum");
  // A rowid gap in a table keyed by text: the reconciliation marks chain_transactions by rowid.
  insert(client, "chain_transactions", { ...ROWS.chain_transactions!(99), signature: "tx-gone" });
  client.exec("DELETE FROM chain_transactions WHERE signature = 'tx-gone'");
  insert(client, "chain_transactions", ROWS.chain_transactions!(100));
}

interface Shape {
  objects: Record<string, { type: string; table: string; sql: string | null }>;
  tableSql: Record<string, string>;
  columns: Record<string, unknown[]>;
  foreignKeys: Record<string, unknown[]>;
  rows: Record<string, unknown[]>;
}

function shapeOf(client: Database): Shape {
  const master = client
    .query<{ type: string; name: string; table: string; sql: string | null }, []>(
      "SELECT type, name, tbl_name AS \"table\", sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all();
  const tables = master.filter((m) => m.type === "table").map((m) => m.name);
  const shape: Shape = { objects: {}, tableSql: {}, columns: {}, foreignKeys: {}, rows: {} };
  for (const m of master) {
    if (m.type === "table") shape.tableSql[m.name] = m.sql ?? "";
    else shape.objects[m.name] = { type: m.type, table: m.table, sql: m.sql };
  }
  for (const table of tables) {
    shape.columns[table] = client
      .query<{ name: string }, []>(`PRAGMA table_xinfo(${table})`)
      .all()
      .map(({ cid: _, ...column }: { cid?: unknown; name: string }) => column)
      .sort((a, b) => a.name.localeCompare(b.name));
    shape.foreignKeys[table] = client
      .query<Record<string, unknown>, []>(`PRAGMA foreign_key_list(${table})`)
      .all()
      .map(({ id: _, seq: __, ...fk }: Record<string, unknown>) => fk);
    const kind = client.query<{ type: string; wr: number }, []>(`PRAGMA table_list(${table})`).get()!;
    // The migrations table gains 0024's own row; every other table must read the same.
    if (kind.type !== "table" || table === "__drizzle_migrations") continue;
    shape.rows[table] = Number(kind.wr)
      ? client.query(`SELECT * FROM ${table} ORDER BY 1, 2`).all()
      : client.query(`SELECT rowid AS rowid_, * FROM ${table} ORDER BY rowid`).all();
  }
  return shape;
}

describe("migration 0024 on a database with rows of every status", () => {
  test("keeps every row, rowid, column, key, index and trigger; only the CHECKs are new", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-checks-"));
    dirs.push(dir);
    const path = join(dir, "service.db");
    const client = new Database(path, { create: true, safeIntegers: true, strict: true });
    client.exec("PRAGMA foreign_keys = ON");
    migrate(drizzle({ client }), { migrationsFolder: migrationsBefore(dir, "0024", "0023_payout_events") });
    insertParents(client);
    fillEveryValue(client);
    const before = shapeOf(client);
    client.close();

    // The service's own open as 0024 met it (later migrations change the schema on purpose): foreign
    // keys on, every pending migration in one transaction.
    const upgraded = new Database(path, { safeIntegers: true, strict: true });
    upgraded.exec("PRAGMA foreign_keys = ON");
    const db = drizzle({ client: upgraded, schema }) as Db;
    migrate(db, { migrationsFolder: migrationsBefore(dir, "0025", "0024_check_constraints") });
    try {
      const after = shapeOf(db.$client);
      expect(after.objects).toEqual(before.objects);
      expect(after.columns).toEqual(before.columns);
      expect(after.foreignKeys).toEqual(before.foreignKeys);
      expect(after.rows).toEqual(before.rows);
      expect(Object.keys(after.tableSql)).toEqual(Object.keys(before.tableSql));
      const rebuilt = Object.keys(after.tableSql).filter((t) => after.tableSql[t] !== before.tableSql[t]);
      expect(rebuilt).toEqual(Object.keys(CONSTRAINED).sort());
      expect(checkNames(db.$client)).toEqual(expectedCheckNames());
      expect(db.$client.query("PRAGMA foreign_key_check").all()).toEqual([]);
      expect(db.$client.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);

      // The append-only triggers of the rebuilt tables, and those of the entries that name them.
      const c = db.$client;
      expect(() => c.query("UPDATE ledger_postings SET at_ms = 5").run()).toThrow("append-only");
      expect(() => c.query("DELETE FROM ledger_postings").run()).toThrow("append-only");
      expect(() => c.query("DELETE FROM ledger_accounts").run()).toThrow("permanent");
      expect(() => c.query("UPDATE ledger_entries SET amount = 1").run()).toThrow("append-only");
      expect(() => c.query("DELETE FROM ledger_entries").run()).toThrow("append-only");
      expect(() => c.query("UPDATE payout_events SET status = 'sent'").run()).toThrow("append-only");
      expect(() => c.query("DELETE FROM payout_events").run()).toThrow("append-only");

      // A posting after the upgrade: its entry triggers add to the rebuilt accounts' second book and
      // figures, which post() compares with the cached balances.
      immediate(db, () =>
        post(db, "after-upgrade", "sweep", 10, [
          { account: { kind: "user", ref: "r-2" }, amount: 3n, tokenId: PARENT_TOKEN, handle: "h" },
          { account: { kind: "sweep_source", ref: "r-0" }, amount: -3n, tokenId: PARENT_TOKEN },
        ]),
      );
      expect(
        c.query("SELECT ref, balance, entry_sum FROM ledger_accounts WHERE ref IN ('r-0', 'r-2') ORDER BY ref").all(),
      ).toEqual([
        { ref: "r-0", balance: -8n, entry_sum: -8n },
        { ref: "r-2", balance: 8n, entry_sum: 8n },
      ]);
    } finally {
      closeDatabase(db);
    }
  });
});
