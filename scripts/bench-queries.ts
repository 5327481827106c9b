/**
 * What a query costs through each of the ways this service could run it, on the same connection
 * and rows, so the choice in docs/queries.md rests on a measurement:
 *
 *   (a) raw SQL through bun:sqlite's `query()` (compiled once, kept in bun's statement cache)
 *   (a') the same statement held in a variable (no cache lookup): what a cache lookup costs
 *   (h) raw SQL through db/statement.ts's `query()` (compiled once, kept in its cache)
 *   (b) drizzle's builder with `.prepare()` (built and compiled once, run with placeholders)
 *   (c) drizzle's builder unprepared (built, rendered and compiled on every call)
 *
 * Both caches first hold OTHER_STATEMENTS other texts, as they do in the service (a few hundred
 * distinct statements): bun's cache is an LRU whose every hit moves its entry within a Map.
 *
 *   bun run bench:queries                 three rounds of each
 *   BENCH_ROUNDS=5 bun run bench:queries
 *
 * Prints the cost of a statement lookup alone in each cache, then each way's operations per second
 * as a ratio to (a) in the same round (the median of the rounds); within a round the ways take
 * turns in short slices, so a loaded machine slows them alike. The database is in memory: an insert
 * on the service's file (synchronous = FULL) waits on the disk, which no query path changes.
 */
import { desc, eq, lt, sql } from "drizzle-orm";
import { closeDatabase, openDatabase } from "../db/client";
import { sweeps, tokens } from "../db/schema";
import { query } from "../db/statement";
import { immediate } from "../db/transaction";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKENS = 2_000;
const SWEEPS_PER_TOKEN = 10;
const PAGE_ROWS = 100;
const OTHER_STATEMENTS = 300;

const db = openDatabase(":memory:");
const client = db.$client;

function seed(): void {
  const addToken = client.prepare(
    `INSERT INTO tokens (mint, name, symbol, metadata_uri, creator_index, creator, creator_vault, deployer,
       launch_signature, launched_at_ms, platform_bps, vault_checked_at_ms)
     VALUES (?, ?, ?, '', ?, 'creator', 'vault', 'deployer', ?, ?, 500, 0)`,
  );
  const addSweep = client.prepare(
    `INSERT INTO sweeps (token_id, signature, last_valid_block_height, status, total_lamports, platform_lamports, created_at_ms)
     VALUES (?, ?, 1, 'confirmed', ?, ?, ?)`,
  );
  immediate(db, () => {
    for (let i = 1; i <= TOKENS; i++) addToken.run(`mint${i}`, `Token ${i}`, `T${i}`, i, `launch${i}`, i * 1000);
    for (let n = 0; n < TOKENS * SWEEPS_PER_TOKEN; n++) {
      addSweep.run((n % TOKENS) + 1, `sweep${n}`, 1_000_000n + BigInt(n), 50_000n, n);
    }
  });
}

// ---------------------------------------------------------------- the three queries, three ways

/** A point lookup: a whole token row by id. */
const TOKEN_BY_ID = `SELECT id, mint, name, symbol, description, website, twitter, telegram,
  metadata_uri AS metadataUri, image_uri AS imageUri, creator_index AS creatorIndex, creator,
  creator_vault AS creatorVault, pool_vault AS poolVault, deployer, launch_signature AS launchSignature,
  launched_at_ms AS launchedAtMs, platform_bps AS platformBps, swept_lamports AS sweptLamports,
  vault_lamports AS vaultLamports, vault_checked_at_ms AS vaultCheckedAtMs, fees_lamports AS feesLamports,
  bonded, market_cap_usd AS marketCapUsd, volume_24h_usd AS volume24hUsd,
  market_checked_at_ms AS marketCheckedAtMs, last_swept_at_ms AS lastSweptAtMs, hidden
  FROM tokens WHERE id = ?`;

/** A keyset page: the 100 sweeps before a position, newest first, with their token's mint. */
const SWEEP_PAGE = `SELECT s.id, s.signature, s.total_lamports AS totalLamports, s.created_at_ms AS createdAtMs,
  t.mint, t.symbol FROM sweeps s JOIN tokens t ON t.id = s.token_id
  WHERE s.id < ? ORDER BY s.id DESC LIMIT ${PAGE_ROWS}`;

/** A write: one sweep row inserted in its own BEGIN IMMEDIATE transaction. */
const INSERT_SWEEP = `INSERT INTO sweeps (token_id, signature, last_valid_block_height, status, total_lamports,
  platform_lamports, created_at_ms) VALUES (?, ?, 1, 'sent', ?, 0, ?)`;

const sweepPageColumns = {
  id: sweeps.id,
  signature: sweeps.signature,
  totalLamports: sweeps.totalLamports,
  createdAtMs: sweeps.createdAtMs,
  mint: tokens.mint,
  symbol: tokens.symbol,
};

const preparedToken = db
  .select()
  .from(tokens)
  .where(eq(tokens.id, sql.placeholder("id")))
  .prepare();
const preparedPage = db
  .select(sweepPageColumns)
  .from(sweeps)
  .innerJoin(tokens, eq(tokens.id, sweeps.tokenId))
  .where(lt(sweeps.id, sql.placeholder("before")))
  .orderBy(desc(sweeps.id))
  .limit(PAGE_ROWS)
  .prepare();
const preparedInsert = db
  .insert(sweeps)
  .values({
    tokenId: sql.placeholder("tokenId"),
    signature: sql.placeholder("signature"),
    lastValidBlockHeight: 1n,
    status: "sent",
    totalLamports: sql.placeholder("totalLamports"),
    platformLamports: 0n,
    createdAtMs: sql.placeholder("createdAtMs"),
  })
  .prepare();
const heldToken = client.prepare(TOKEN_BY_ID);
const heldPage = client.prepare(SWEEP_PAGE);
const heldInsert = client.prepare(INSERT_SWEEP);

let inserted = 0;
const nextSweep = () => {
  inserted++;
  return { tokenId: (inserted % TOKENS) + 1, signature: `bench${inserted}`, lamports: 1000n + BigInt(inserted) };
};
const idAt = (i: number) => (i % TOKENS) + 1;
const pageBefore = (i: number) => TOKENS * SWEEPS_PER_TOKEN - (i % 150) * PAGE_ROWS;

type Way = "a" | "a'" | "h" | "b" | "c";
const WAYS: Way[] = ["a", "a'", "h", "b", "c"];
interface Case {
  name: string;
  calls: number;
  ways: Record<Way, (i: number) => unknown>;
}

const CASES: Case[] = [
  {
    name: "point lookup by id (whole token row)",
    calls: 60_000,
    ways: {
      a: (i) => client.query(TOKEN_BY_ID).get(idAt(i)),
      "a'": (i) => heldToken.get(idAt(i)),
      h: (i) => query<unknown, [id: number]>(db, TOKEN_BY_ID).get(idAt(i)),
      b: (i) => preparedToken.get({ id: idAt(i) }),
      c: (i) =>
        db
          .select()
          .from(tokens)
          .where(eq(tokens.id, idAt(i)))
          .get(),
    },
  },
  {
    name: `keyset page of ${PAGE_ROWS} rows with a join`,
    calls: 1_000,
    ways: {
      a: (i) => client.query(SWEEP_PAGE).all(pageBefore(i)),
      "a'": (i) => heldPage.all(pageBefore(i)),
      h: (i) => query<unknown, [before: number]>(db, SWEEP_PAGE).all(pageBefore(i)),
      b: (i) => preparedPage.all({ before: pageBefore(i) }),
      c: (i) =>
        db
          .select(sweepPageColumns)
          .from(sweeps)
          .innerJoin(tokens, eq(tokens.id, sweeps.tokenId))
          .where(lt(sweeps.id, pageBefore(i)))
          .orderBy(desc(sweeps.id))
          .limit(PAGE_ROWS)
          .all(),
    },
  },
  {
    name: "insert in a transaction",
    calls: 5_000,
    ways: {
      a: (i) => {
        const s = nextSweep();
        return immediate(db, () => client.query(INSERT_SWEEP).run(s.tokenId, s.signature, s.lamports, i));
      },
      "a'": (i) => {
        const s = nextSweep();
        return immediate(db, () => heldInsert.run(s.tokenId, s.signature, s.lamports, i));
      },
      h: (i) => {
        const s = nextSweep();
        return immediate(db, () =>
          query<never, [tokenId: number, signature: string, lamports: bigint, atMs: number]>(db, INSERT_SWEEP).run(
            s.tokenId,
            s.signature,
            s.lamports,
            i,
          ),
        );
      },
      b: (i) => {
        const s = nextSweep();
        return immediate(db, () =>
          preparedInsert.run({
            tokenId: s.tokenId,
            signature: s.signature,
            totalLamports: s.lamports,
            createdAtMs: i,
          }),
        );
      },
      c: (i) => {
        const s = nextSweep();
        return immediate(db, () =>
          db
            .insert(sweeps)
            .values({
              tokenId: s.tokenId,
              signature: s.signature,
              lastValidBlockHeight: 1n,
              status: "sent",
              totalLamports: s.lamports,
              platformLamports: 0n,
              createdAtMs: i,
            })
            .run(),
        );
      },
    },
  },
];

const SLICES = 20;

/**
 * Each way's operations per second over one round, the ways taking turns in short slices (in an
 * order that rotates) so a neighbour's load on a shared machine falls on all of them alike.
 */
function roundOpsPerSecond(c: Case): Record<Way, number> {
  const elapsedNs = { a: 0, "a'": 0, h: 0, b: 0, c: 0 };
  const perSlice = Math.ceil(c.calls / SLICES);
  for (const w of WAYS) for (let i = 0; i < Math.min(perSlice, 200); i++) c.ways[w](i); // warm the JIT
  for (let slice = 0; slice < SLICES; slice++) {
    for (let k = 0; k < WAYS.length; k++) {
      const way = WAYS[(slice + k) % WAYS.length]!;
      const run = c.ways[way];
      const start = Bun.nanoseconds();
      for (let i = slice * perSlice; i < (slice + 1) * perSlice; i++) run(i);
      elapsedNs[way] += Bun.nanoseconds() - start;
    }
  }
  return Object.fromEntries(WAYS.map((w) => [w, (perSlice * SLICES) / (elapsedNs[w] / 1e9)])) as Record<Way, number>;
}

/** The cache lookup by itself, no statement run: what (a) and (h) add to (a'). */
function lookupAlone(): void {
  const lookups = { a: () => client.query(TOKEN_BY_ID), h: () => query<unknown, [id: number]>(db, TOKEN_BY_ID) };
  const elapsedNs = { a: 0, h: 0 };
  const calls = 20_000;
  for (let slice = 0; slice < 50; slice++) {
    for (const way of slice % 2 ? (["a", "h"] as const) : (["h", "a"] as const)) {
      const start = Bun.nanoseconds();
      for (let i = 0; i < calls; i++) lookups[way]();
      elapsedNs[way] += Bun.nanoseconds() - start;
    }
  }
  const ns = (way: "a" | "h") => (elapsedNs[way] / (50 * calls)).toFixed(0);
  say(`\nstatement lookup alone: (a) bun's cache ${ns("a")} ns, (h) query()'s cache ${ns("h")} ns`);
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

seed();
for (let n = 0; n < OTHER_STATEMENTS; n++) {
  client.query(`SELECT ${n} AS other`);
  query<unknown>(db, `SELECT ${n} AS other`);
}
const say = (line: string) => process.stdout.write(`${line}\n`);
say(
  `bun ${Bun.version}, ${TOKENS} tokens, ${TOKENS * SWEEPS_PER_TOKEN} sweeps, ${OTHER_STATEMENTS} other statements cached, ${ROUNDS} rounds (median)`,
);
lookupAlone();
for (const c of CASES) {
  const ratios: Record<Way, number[]> = { a: [], "a'": [], h: [], b: [], c: [] };
  const base: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ops = roundOpsPerSecond(c);
    base.push(ops.a);
    for (const w of WAYS) ratios[w].push(ops[w] / ops.a);
  }
  say(`\n${c.name}: (a) ${Math.round(median(base)).toLocaleString("en-US")} ops/s`);
  for (const w of WAYS) say(`  (${w})${w.length === 1 ? " " : ""} ${median(ratios[w]).toFixed(2)}× (a)`);
}
closeDatabase(db);
