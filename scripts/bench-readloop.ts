/**
 * The sweep's read loop at scale (issue 42): one sweep run over a seeded database of N tokens,
 * with a stand-in launch program that answers every vault read at once (the local chain cannot
 * hold a million launched tokens in time), so what is measured is the service's own side: the
 * keyset pages over due tokens, the readings' writes, the schedule's notes, the run's memory.
 *
 *   bun run bench:readloop [-- --tokens 1000000 --dir data/bench --due-percent 1 --read-ms 0 --keep]
 *
 * Uses the database bench:api seeds (`<dir>/tokens-N-seed-7`, seeding it if absent) on a copy
 * (`--keep` leaves it, in `<dir>/tokens-N-seed-7-readloop`), and gives every token a schedule:
 * `--due-percent` of them due now (the active ones), the rest due between half an hour and the
 * quiet maximum (six hours) from now. Then two runs, each in a process of its own so its peak RSS
 * is its own: the scheduled path (reads only the due tokens) and the read-everything path (every
 * token, as before the schedule). Nothing is above the sweep minimum, so nothing is sent;
 * the run still resolves the seed's sent sweeps (the stand-in says pending) and reconciles (the
 * audit of the books included). `--read-ms` adds a wait per `readVaults` call (a node's round trip).
 * Prints each run's time, the read pass's time, tokens read, pages and peak RSS, and the due-token
 * query's plan.
 */
import { spawn } from "bun";
import { Keypair } from "@solana/web3.js";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { closeDatabase, openDatabase } from "../db/client";
import type { LaunchProgram, VaultReading } from "../src/chain/ports";
import type { ChainServices } from "../src/chain/services";
import { acquireLease, assertLeaseHeld, releaseLease } from "../src/jobs";
import { setLogSilent } from "../src/lib/log";
import { runSweepJob } from "../src/sweeps";
import { DUE_SLACK_MS, DUE_TOKENS_PAGE_SQL, dueTokensAfter } from "../src/tokens";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const QUIET_MAX_MS = 6 * 3_600_000;
const say = (line: string) => process.stdout.write(`${line}\n`);

function peakRssMb(): { rssMb: number; peakMb: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/** A fee figure fixed by the mint: the same answer every run, so a second reading is quiet. */
function lamportsOf(mint: string): bigint {
  let h = 0;
  for (let i = 0; i < mint.length; i++) h = (h * 31 + mint.charCodeAt(i)) >>> 0;
  return BigInt(h % 6_000_000);
}

/** The chain ports one run reaches with nothing to sweep; anything else throws, naming itself. */
function standInChain(readMs: number, pages: { calls: number; tokens: number; firstMs: number; lastMs: number }) {
  const treasury = Keypair.generate();
  const unused = (name: string) => (): never => {
    throw new Error(`bench:readloop: ${name} is not expected in a run with nothing to sweep`);
  };
  const readVaults = async (tokens: readonly { mint: string }[]): Promise<VaultReading[]> => {
    if (pages.calls === 0) pages.firstMs = performance.now();
    pages.calls += 1;
    pages.tokens += tokens.length;
    if (readMs > 0) await Bun.sleep(readMs);
    const readings = tokens.map((t) => ({
      mint: t.mint,
      curveLamports: lamportsOf(t.mint),
      poolLamports: 0n,
      creatorLamports: 0n,
      bonded: false,
    }));
    pages.lastMs = performance.now();
    return readings;
  };
  const launchProgram = new Proxy({ kind: "local", readVaults } as unknown as LaunchProgram, {
    get: (target, key) => (key in target ? target[key as keyof LaunchProgram] : unused(`launchProgram.${String(key)}`)),
  });
  const chain: ChainServices = {
    reader: {
      getBalances: async (addresses) => new Map(addresses.map((a) => [a, 10n ** 18n])),
      getAccounts: unused("reader.getAccounts"),
      getTransaction: unused("reader.getTransaction"),
      getSignatureStatuses: async () => new Map(),
      getBlockHeight: async () => 0n,
      getLatestBlockhash: unused("reader.getLatestBlockhash"),
    },
    sender: {
      prepare: unused("sender.prepare"),
      send: unused("sender.send"),
      outcome: async () => ({ kind: "pending" }),
    },
    launchProgram,
    treasury,
    creatorKeypair: unused("creatorKeypair"),
    creatorAddress: unused("creatorAddress"),
  };
  return chain;
}

/** Child mode: one sweep run on `--db`, reading everything or only what is due; prints one JSON line. */
async function runOnce(dbPath: string, everyToken: boolean, readMs: number): Promise<void> {
  setLogSilent(true);
  const db = openDatabase(dbPath);
  const before = peakRssMb();
  const pages = { calls: 0, tokens: 0, firstMs: 0, lastMs: 0 };
  const chain = standInChain(readMs, pages);
  const lease = acquireLease(db, "sweep", "bench-readloop", 60 * 60_000);
  if (!lease) throw new Error("the sweep lease is held");
  const started = performance.now();
  try {
    const report = await runSweepJob(
      {
        db,
        chain,
        // Nothing reaches the minimum: the run reads and stores, and sends nothing.
        sweepMinLamports: 10n ** 15n,
        platformBuybackBps: 0,
        now: () => Date.now(),
        settleTimeoutMs: 0,
        ...(everyToken ? {} : { quietMaxIntervalMs: QUIET_MAX_MS }),
      },
      { lease, signal: new AbortController().signal, assertHeld: () => assertLeaseHeld(db, lease) },
    );
    const runSeconds = (performance.now() - started) / 1000;
    const after = peakRssMb();
    process.stdout.write(
      `${JSON.stringify({
        path: everyToken ? "read everything" : "scheduled",
        runSeconds,
        readPassSeconds: pages.calls ? (pages.lastMs - pages.firstMs) / 1000 : 0,
        tokensRead: report.tokensRead,
        readCalls: pages.calls,
        pending: report.pending,
        rssBeforeMb: before.rssMb,
        peakRssMb: after.peakMb,
      })}\n`,
    );
  } finally {
    releaseLease(db, lease, { ok: true, error: null });
    closeDatabase(db);
  }
}

/** Every token scheduled: `duePercent` of them (spread over the ids) due now, the rest later. */
function fillSchedule(
  dbPath: string,
  duePercent: number,
  nowMs: number,
): { tokens: number; due: number; plan: string[]; pages: number; pagingMs: number } {
  const db = openDatabase(dbPath);
  try {
    const c = db.$client;
    c.transaction(() => {
      c.exec("DELETE FROM reading_schedule");
      // A token due now is active (read every run); a quiet one waits up to the maximum.
      c.query<never, [duePercent: number, nowMs: number, maxMs: number]>(
        `INSERT INTO reading_schedule (token_id, interval_ms, next_read_at_ms, active_at_ms)
         SELECT id,
                CASE WHEN (id * 7919) % 10000 < ?1 * 100 THEN 0 ELSE ?3 END,
                CASE WHEN (id * 7919) % 10000 < ?1 * 100 THEN ?2 - 60000
                     ELSE ?2 + 1800000 + (id * 104729) % (?3 - 1800000) END,
                ?2 - (id * 15485863) % (30 * 86400000)
           FROM tokens`,
      ).run(duePercent, nowMs, QUIET_MAX_MS);
    }).immediate();
    const count = (sql: string, ...params: number[]) =>
      Number((c.query(sql).get(...params) as { n: number | bigint }).n);
    const tokens = count("SELECT COUNT(*) AS n FROM tokens");
    // The others are due half an hour on at the earliest: none turns due while the runs go.
    const due = count("SELECT COUNT(*) AS n FROM reading_schedule WHERE next_read_at_ms <= ?", nowMs + DUE_SLACK_MS);
    // The scheduled path's page query (dueTokensAfter's).
    const plan = (c.query(`EXPLAIN QUERY PLAN ${DUE_TOKENS_PAGE_SQL}`).all(0, nowMs, 100) as { detail: string }[]).map(
      (r) => r.detail,
    );
    // The scheduled path's keyset pages alone, as a run asks them (pages of 100).
    const started = performance.now();
    let pages = 0;
    for (let afterId = 0; pages < 1_000_000; pages++) {
      const rows = dueTokensAfter(db, afterId, nowMs, 100);
      if (rows.length === 0) break;
      afterId = Number(rows.at(-1)!.id);
    }
    const pagingMs = performance.now() - started;
    return { tokens, due, plan, pages, pagingMs };
  } finally {
    closeDatabase(db);
  }
}

async function child(dbPath: string, everyToken: boolean, readMs: number) {
  const proc = spawn(
    [
      process.execPath,
      import.meta.path,
      "--run",
      everyToken ? "every" : "scheduled",
      "--db",
      dbPath,
      "--read-ms",
      String(readMs),
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`the ${everyToken ? "read-everything" : "scheduled"} run failed`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as {
    path: string;
    runSeconds: number;
    readPassSeconds: number;
    tokensRead: number;
    readCalls: number;
    pending: number;
    rssBeforeMb: number;
    peakRssMb: number;
  };
}

async function ensureSeeded(dataDir: string, tokens: number, seed: number): Promise<void> {
  if (existsSync(join(dataDir, "seeded.json"))) return;
  rmSync(dataDir, { recursive: true, force: true });
  say(`seeding ${tokens} tokens into ${dataDir} (once; bench:api reuses it)`);
  const proc = spawn(
    [process.execPath, join(import.meta.dir, "seed.ts"), "--tokens", String(tokens), "--seed", String(seed)],
    { env: { ...process.env, DATA_DIR: dataDir }, stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("seeding failed");
  writeFileSync(join(dataDir, "seeded.json"), out);
}

async function main(): Promise<void> {
  const readMs = Number(arg("--read-ms", "0"));
  const run = arg("--run", "");
  if (run) return runOnce(arg("--db", ""), run === "every", readMs);

  const tokens = Number(arg("--tokens", "1000000"));
  const seed = Number(arg("--seed", "7"));
  const duePercent = Number(arg("--due-percent", "1"));
  const root = resolve(arg("--dir", "data/bench"));
  const dataDir = join(root, `tokens-${tokens}-seed-${seed}`);
  await ensureSeeded(dataDir, tokens, seed);
  // The runs write readings and schedules: they work on a copy, so bench:api's database stays as seeded.
  const workDir = `${dataDir}-readloop`;
  rmSync(workDir, { recursive: true, force: true });
  cpSync(dataDir, workDir, { recursive: true });
  const dbPath = join(workDir, "service.db");
  try {
    const schedule = fillSchedule(dbPath, duePercent, Date.now());
    say(`read loop at ${schedule.tokens.toLocaleString("en")} tokens, ${schedule.due.toLocaleString("en")} due now`);
    say(`due-token page query plan: ${schedule.plan.join("; ")}`);
    say(`due-token pages alone (100 tokens a page): ${schedule.pages} in ${schedule.pagingMs.toFixed(0)} ms`);
    const rows = [await child(dbPath, false, readMs), await child(dbPath, true, readMs)];
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    say(
      `${"path".padEnd(16)}${pad("read", 10)}${pad("calls", 8)}${pad("run s", 8)}${pad("read s", 8)}${pad("RSS before", 12)}${pad("peak RSS", 10)}`,
    );
    for (const r of rows)
      say(
        `${r.path.padEnd(16)}${pad(r.tokensRead, 10)}${pad(r.readCalls, 8)}${pad(r.runSeconds.toFixed(1), 8)}${pad(r.readPassSeconds.toFixed(1), 8)}${pad(`${r.rssBeforeMb.toFixed(0)} MB`, 12)}${pad(`${r.peakRssMb.toFixed(0)} MB`, 10)}`,
      );
    const [scheduled, everything] = rows;
    const misses: string[] = [];
    if (scheduled!.tokensRead !== schedule.due)
      misses.push(`scheduled run read ${scheduled!.tokensRead}, ${schedule.due} due`);
    if (everything!.tokensRead !== schedule.tokens)
      misses.push(`read-everything run read ${everything!.tokensRead} of ${schedule.tokens}`);
    say(
      misses.length === 0
        ? "every due token read, and every token on the read-everything path"
        : `MISSED: ${misses.join("; ")}`,
    );
    process.exitCode = misses.length === 0 ? 0 : 1;
  } finally {
    if (!args.includes("--keep")) rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
