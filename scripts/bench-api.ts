/**
 * Benchmark of the public reads at scale: seeds 100,000 tokens (about 1M sweeps and 1M ledger
 * events; the seeded database is cached and reused), starts the real server (`src/main.ts`) on it,
 * and drives each read with a bounded loopback load generator for a fixed time, next to a bare
 * route returning a constant JSON body of the same size, served by a separate Elysia process in
 * the same run. Prints requests/s, p50 and p99 per read, the ratio to the bare route and the
 * server's peak RSS, and checks the targets (ratio >= 0.3, p99 < 25 ms, RSS < 300 MB).
 *
 *   bun run bench:api [-- --tokens 100000 --seconds 5 --connections 8 --dir data/bench --churn-ms 0 --jobs]
 *
 * `--tokens 1000000` runs the same reads at a million tokens; its seed keeps ~1M sweeps (the 100k
 * history; see `defaultSweepsPerToken` in scripts/seed.ts) and takes its own directory.
 *
 * Both phases run the server as deployed with a cron secret, so its jobs' thread is up (and takes
 * the WAL checkpoints); with the jobs off no run is started.
 *
 * `--jobs` measures every read twice in one run: with the jobs off, then with the jobs working the
 * seed's backlog (sent sweeps to resolve, queued payouts to send; on a copy of the seeded database,
 * the cron route firing sweep, payouts and burns back to back while the reads are measured). Each
 * row also shows the server's RSS after that read; the targets then are ratio >= 0.5 of bare and
 * p99 <= 25 ms with the jobs on (issue #16). Besides the memo-friendly pools, three loads of many
 * different URLs read what no memo helps: random token details (each one's vault refresh reaches
 * the chain), account records of random handles and 3-letter searches.
 *
 * Rendered public answers are remembered until the database changes (src/http/read-memo.ts). With
 * `--churn-ms N` a second connection writes a bench-only setting every N ms while measuring, so
 * that memo keeps being invalidated as on a busy deployment whose jobs write all the time.
 *
 * The load generator is Bun's own fetch over keep-alive connections, so nothing needs installing;
 * it shares the machine with the server, as does the bare route's, so the ratio stays fair. Each
 * read and its bare route take turns (three stretches each), so both see the same background.
 */
import { spawn, type Subprocess } from "bun";
import { Database } from "bun:sqlite";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { closeDatabase, openDatabase } from "../db/client";
import { runtimeEnv } from "../src/workers/runtime-env";
import { fillPoolVaults } from "./seed";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};

// ------------------------------------------------------------------ bare server mode
if (args.includes("--bare")) {
  const { Elysia } = await import("elysia");
  const bodies = new Map<number, string>();
  const bodyOf = (bytes: number) => {
    const known = bodies.get(bytes);
    if (known) return known;
    const body = JSON.stringify({ data: "x".repeat(Math.max(0, bytes - 12)) });
    bodies.set(bytes, body);
    return body;
  };
  const app = new Elysia().get("/bare/:bytes", ({ params, set }) => {
    set.headers["content-type"] = "application/json";
    return bodyOf(Math.min(2_000_000, Number(params.bytes) || 0));
  });
  app.listen({ port: Number(arg("--port", "0")), hostname: "127.0.0.1" });
  process.stdout.write(`${JSON.stringify({ port: app.server!.port })}\n`);
  await new Promise(() => {});
}

// ------------------------------------------------------------------ bench mode
const tokens = Number(arg("--tokens", "100000"));
const seconds = Number(arg("--seconds", "5"));
const connections = Number(arg("--connections", "8"));
const seed = Number(arg("--seed", "7"));
const churnMs = Number(arg("--churn-ms", "0"));
const withJobs = args.includes("--jobs");
const root = resolve(arg("--dir", "data/bench"));
const dataDir = join(root, `tokens-${tokens}-seed-${seed}`);
const marker = join(dataDir, "seeded.json");
const here = import.meta.dir;
const repo = resolve(here, "..");
const CRON_SECRET = "bench-cron-secret-0123456789abcdef0123";
const MANY_URLS = 20_000;

function log(line: string) {
  process.stderr.write(`bench: ${line}\n`);
}

async function ensureSeeded(): Promise<void> {
  if (existsSync(marker)) {
    log(`reusing the seeded database in ${dataDir}`);
    const db = openDatabase(join(dataDir, "service.db"));
    try {
      const filled = fillPoolVaults(db);
      if (filled > 0) log(`filled the pool vault of ${filled} tokens seeded before it was recorded`);
    } finally {
      closeDatabase(db);
    }
    return;
  }
  rmSync(dataDir, { recursive: true, force: true });
  log(`seeding ${tokens} tokens into ${dataDir} (once; later runs reuse it)`);
  const child = spawn(
    [process.execPath, join(repo, "scripts/seed.ts"), "--tokens", String(tokens), "--seed", String(seed)],
    {
      env: { ...process.env, DATA_DIR: dataDir },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("seeding failed");
  writeFileSync(marker, out);
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port!;
  server.stop(true);
  return port;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`no answer from ${url}`);
    await Bun.sleep(200);
  }
}

function rssOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

interface Result {
  name: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  bytes: number;
}

/** What one stretch of load measured (requests in the warm-up are not counted). */
interface Sample {
  latencies: number[];
  errors: number;
  bytes: number;
}

/**
 * Closed-loop load: `connections` workers, each sending its next request when the last answered.
 * `cursor` is shared by a target's stretches: with many different URLs, no URL is asked twice until
 * all were.
 */
async function drive(urls: string[], durationMs: number, warmupMs: number, cursor: { next: number }): Promise<Sample> {
  const warmupEnd = performance.now() + warmupMs;
  const end = warmupEnd + durationMs;
  const sample: Sample = { latencies: [], errors: 0, bytes: 0 };
  const worker = async () => {
    for (;;) {
      const started = performance.now();
      if (started >= end) return;
      const url = urls[cursor.next++ % urls.length]!;
      try {
        const r = await fetch(url);
        const body = await r.arrayBuffer();
        if (r.status !== 200) sample.errors++;
        const done = performance.now();
        if (started >= warmupEnd) {
          sample.latencies.push(done - started);
          sample.bytes += body.byteLength;
        }
      } catch {
        sample.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, () => worker()));
  return sample;
}

function summarize(name: string, samples: Sample[], durationS: number): Result {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const n = latencies.length;
  const bytes = samples.reduce((sum, s) => sum + s.bytes, 0);
  const q = (p: number) => latencies[Math.min(n - 1, Math.floor(p * n))] ?? NaN;
  return {
    name,
    requests: n,
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
    rps: n / durationS,
    p50: q(0.5),
    p99: q(0.99),
    bytes: n ? Math.round(bytes / n) : 0,
  };
}

/**
 * A read and its bare route are measured in alternating stretches (this many of each), so that a
 * burst of the jobs' work or of the machine's other load falls on both sides alike: measured one
 * after the other, 3 s each, the ratio moved by +-0.1 from run to run.
 */
const STRETCHES = 3;
const WARMUP_MS = 500;

/** The parts of the public answers the bench reads back to build its pools. */
interface Answer {
  tokens: { mint: string; recipients: { handle: string }[] }[];
  nextCursor: string | null;
  nextBefore: string | null;
}

async function json(url: string): Promise<Answer> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return (await r.json()) as Answer;
}

let server: Subprocess | null = null;
let bare: Subprocess | null = null;
const stopAll = () => {
  server?.kill();
  bare?.kill();
};
process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

/** The real server on `dir`, jobs on or off; resolves once it answers. */
async function startServer(dir: string, jobs: boolean): Promise<{ child: Subprocess; base: string }> {
  const port = await freePort();
  log(`starting the server, jobs ${jobs ? "on" : "off"}`);
  const child = spawn([process.execPath, join(repo, "src/main.ts")], {
    cwd: repo,
    env: {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(port),
      HOST: "127.0.0.1",
      RATE_LIMIT: "off",
      JOBS: jobs ? "on" : "off",
      // Both phases as deployed with an outside cron (the jobs' thread up); with the jobs off no run starts.
      CRON_SECRET,
      DEMO: "off",
      LOG_LEVEL: "warn",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      // As `npm start` and the Dockerfile run it.
      ...runtimeEnv(process.env),
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/stats`, 180_000);
  return { child, base };
}

async function startBare(): Promise<string> {
  bare = spawn([process.execPath, join(here, "bench-api.ts"), "--bare"], { stdout: "pipe", stderr: "inherit" });
  const first = await (bare.stdout as ReadableStream<Uint8Array>).getReader().read();
  const bareLine = new TextDecoder().decode(first.value);
  return `http://127.0.0.1:${JSON.parse(bareLine.trim().split("\n")[0]!).port as number}`;
}

interface Target {
  name: string;
  /** paths; the base is the server of the phase */
  paths: string[];
  /** many different URLs: not touched before measuring */
  cold?: boolean;
}

async function cursorsOf(base: string, sort: string, pages: number): Promise<string[]> {
  const paths = [`/api/tokens?sort=${sort}`];
  let cursor: string | null = null;
  for (let p = 0; p < pages; p++) {
    const body = await json(`${base}/api/tokens?sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    cursor = body.nextCursor;
    if (!cursor) break;
    paths.push(`/api/tokens?sort=${sort}&cursor=${encodeURIComponent(cursor)}`);
  }
  return paths;
}

async function ledgerPaths(base: string): Promise<string[]> {
  // Positions spread deep into the feed: every 20th page of 100 events, up to 100,000 events back.
  const paths = ["/api/ledger"];
  let before: string | null = null;
  for (let p = 0; p < 1000; p++) {
    const body = await json(`${base}/api/ledger?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`);
    before = body.nextBefore;
    if (!before) break;
    if (p % 20 === 19) paths.push(`/api/ledger?before=${encodeURIComponent(before)}`);
  }
  return paths;
}

/** The memo-friendly pools of the original bench: a few hot pages per read. */
async function hotTargets(base: string): Promise<Target[]> {
  const sample = (await json(`${base}/api/tokens?sort=new&limit=60`)).tokens;
  const mints: string[] = [];
  for (const sort of ["new", "fees", "mcap"]) {
    const body = await json(`${base}/api/tokens?sort=${sort}&limit=60`);
    mints.push(...body.tokens.map((t) => t.mint));
  }
  const handles = [...new Set(sample.flatMap((t) => t.recipients.map((r) => r.handle)))].slice(0, 100);
  const fragments = ["pepe", "moon", "frog", "rocket", "laser", "diamond", "turbo", "pixel", "based", "wojak"];
  return [
    { name: "tokens sort=new", paths: await cursorsOf(base, "new", 40) },
    { name: "tokens sort=fees", paths: await cursorsOf(base, "fees", 40) },
    { name: "tokens sort=mcap", paths: await cursorsOf(base, "mcap", 40) },
    {
      name: "tokens q=",
      paths: [
        ...fragments.map((q) => `/api/tokens?q=${q}`),
        ...handles.slice(0, 20).map((h) => `/api/tokens?q=%40${h}`),
        ...mints.slice(0, 10).map((m) => `/api/tokens?q=${m}`),
      ],
    },
    { name: "token detail", paths: mints.map((m) => `/api/tokens/${m}`) },
    { name: "account", paths: handles.map((h) => `/api/idp/${h}`) },
    { name: "stats", paths: ["/api/stats"] },
    { name: "ledger (deep pages)", paths: await ledgerPaths(base) },
  ];
}

/** Many different URLs, drawn from the seeded database itself: random details, handles, 3-letter searches. */
function manyTargets(dbPath: string): Target[] {
  const db = new Database(dbPath, { readonly: true });
  const column = (sql: string) =>
    db
      .query<{ v: string }, [number]>(sql)
      .all(MANY_URLS)
      .map((r) => r.v);
  const mints = column("SELECT mint AS v FROM tokens ORDER BY random() LIMIT ?");
  const handles = column("SELECT DISTINCT handle AS v FROM token_recipients ORDER BY random() LIMIT ?");
  const names = column("SELECT lower(name) AS v FROM tokens ORDER BY random() LIMIT ?");
  db.close();
  const searches = names.map((name, i) => {
    const letters = name.replace(/[^a-z]/g, "");
    const at = letters.length > 3 ? i % (letters.length - 2) : 0;
    return `/api/tokens?q=${(letters.slice(at, at + 3) || "abc").padEnd(3, "x")}`;
  });
  return [
    { name: "many details", paths: mints.map((m) => `/api/tokens/${m}`), cold: true },
    { name: "many accounts", paths: handles.map((h) => `/api/idp/${h}`), cold: true },
    { name: "many 3-letter q", paths: searches, cold: true },
  ];
}

interface Row {
  route: Result;
  bare: Result;
  rssMb: number;
}

/** While `active()`, the cron route runs sweep, payouts and burns back to back (each under its lease). */
function driveJobs(base: string, active: () => boolean): Promise<Record<string, string[]>> {
  const outcomes: Record<string, string[]> = {};
  const loop = async (job: string) => {
    outcomes[job] = [];
    while (active()) {
      const authorization = `Bearer ${CRON_SECRET}`;
      const r = await fetch(`${base}/api/cron/${job}`, { method: "POST", headers: { authorization } }).catch(
        () => null,
      );
      if (r?.status !== 202) {
        outcomes[job]!.push(String(r?.status));
        await Bun.sleep(100);
        continue;
      }
      // The route answers once the run has started; its report is read until it has finished.
      const { runId } = (await r.json()) as { runId: string };
      let run: { state: string; durationMs: number | null } = { state: "running", durationMs: null };
      while (run.state === "running") {
        await Bun.sleep(50);
        run = await fetch(`${base}/api/cron/runs/${runId}`, { headers: { authorization } }).then((x) => x.json());
      }
      outcomes[job]!.push(`${run.state === "succeeded" ? "ok" : run.state} ${run.durationMs} ms`);
      await Bun.sleep(100);
    }
  };
  return Promise.all(["sweep", "payouts", "burns"].map(loop)).then(() => outcomes);
}

async function measure(targets: Target[], base: string, bareBase: string, pid: number): Promise<Row[]> {
  // Touch every hot URL once, so one-off costs (the vault refresh of a stale reading) are not measured.
  for (const t of targets)
    if (!t.cold) for (const path of t.paths) await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
  const rows: Row[] = [];
  for (const t of targets) {
    log(`measuring ${t.name} for ${seconds} s with ${connections} connections, alternating with the bare route`);
    const urls = t.paths.map((path) => `${base}${path}`);
    const cursor = { next: 0 };
    const routeSamples: Sample[] = [];
    const bareSamples: Sample[] = [];
    let bareUrl: string | null = null;
    const stretchMs = (seconds * 1000) / STRETCHES;
    for (let i = 0; i < STRETCHES; i++) {
      const warmupMs = i === 0 ? WARMUP_MS : 0;
      routeSamples.push(await drive(urls, stretchMs, warmupMs, cursor));
      // The bare body is as large as the read's own (known after its first stretch).
      bareUrl ??= `${bareBase}/bare/${summarize(t.name, routeSamples, seconds).bytes}`;
      bareSamples.push(await drive([bareUrl], stretchMs, warmupMs, { next: 0 }));
    }
    const route = summarize(t.name, routeSamples, seconds);
    const bareResult = summarize(`bare ${route.bytes} B`, bareSamples, seconds);
    rows.push({ route, bare: bareResult, rssMb: rssOf(pid).rssMb });
  }
  return rows;
}

function startChurn(dir: string): () => void {
  if (churnMs <= 0) return () => {};
  const writer = new Database(join(dir, "service.db"));
  writer.exec("PRAGMA busy_timeout = 1000");
  const tick = writer.prepare(
    "INSERT INTO settings (key, value) VALUES ('bench_tick', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1",
  );
  let n = 0;
  const timer = setInterval(() => tick.run(String(n++)), churnMs);
  return () => {
    clearInterval(timer);
    writer.close();
  };
}

/** What the jobs had left: payouts and sweeps by status (the backlog they work through). */
function backlogOf(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true });
  const count = (table: "payouts" | "sweeps") =>
    db
      .query<{ status: string; n: number }, []>(
        `SELECT status, COUNT(*) AS n FROM ${table} GROUP BY status ORDER BY status`,
      )
      .all()
      .map((r) => `${r.status} ${r.n}`)
      .join(", ");
  const line = `payouts: ${count("payouts")}; sweeps: ${count("sweeps")}`;
  db.close();
  return line;
}

interface Phase {
  jobs: boolean;
  rows: Row[];
  peakMb: number;
  notes: string[];
}

async function runPhase(jobs: boolean, bareBase: string): Promise<Phase> {
  let dir = dataDir;
  if (jobs) {
    // The jobs change the books: they work on a copy, so every run starts from the same backlog.
    dir = `${dataDir}-jobs`;
    rmSync(dir, { recursive: true, force: true });
    cpSync(dataDir, dir, { recursive: true });
  }
  const dbPath = join(dir, "service.db");
  const notes = jobs ? [`backlog before: ${backlogOf(dbPath)}`] : [];
  const started = await startServer(dir, jobs);
  server = started.child;
  log("collecting request pools (mints, handles, cursors, deep ledger positions, many random URLs)");
  const targets = [...(await hotTargets(started.base)), ...manyTargets(dbPath)];
  let driving = jobs;
  const driver = jobs ? driveJobs(started.base, () => driving) : null;
  if (jobs) await Bun.sleep(2_000);
  const stopChurn = startChurn(dir);
  const rows = await measure(targets, started.base, bareBase, server.pid);
  stopChurn();
  driving = false;
  const { peakMb } = rssOf(server.pid);
  server.kill("SIGTERM");
  await Promise.race([server.exited, Bun.sleep(40_000)]);
  server = null;
  if (driver) {
    const outcomes = await Promise.race([driver, Bun.sleep(1_000).then(() => null)]);
    for (const [job, runs] of Object.entries(outcomes ?? {}))
      notes.push(`cron ${job}: ${runs.join("; ") || "still running"}`);
    notes.push(`backlog after: ${backlogOf(dbPath)}`);
  }
  return { jobs, rows, peakMb, notes };
}

function report(phase: Phase): { lines: string[]; met: boolean } {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [
    `public reads at ${tokens.toLocaleString("en")} tokens, ${connections} connections, ${seconds} s each, jobs ${phase.jobs ? "ON (working the seed's backlog)" : "off"}${churnMs > 0 ? `, a write every ${churnMs} ms` : ""}`,
    `${"read".padEnd(22)}${pad("req/s", 9)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}${pad("bytes", 9)}${pad("bare/s", 9)}${pad("ratio", 7)}${pad("errors", 8)}${pad("RSS MB", 8)}  targets`,
  ];
  // Hot reads: ratio to bare (>= 0.5 with the jobs on, issue #16; >= 0.3 otherwise); many-URL loads: p99 only.
  const minRatio = phase.jobs ? 0.5 : 0.3;
  let met = true;
  for (const { route, bare: b, rssMb } of phase.rows) {
    const ratio = route.rps / b.rps;
    const cold = route.name.startsWith("many");
    const ok = (cold || ratio >= minRatio) && route.p99 <= 25 && route.errors === 0;
    met &&= ok;
    lines.push(
      `${route.name.padEnd(22)}${pad(route.rps.toFixed(0), 9)}${pad(route.p50.toFixed(2), 9)}${pad(route.p99.toFixed(2), 9)}${pad(route.bytes, 9)}${pad(b.rps.toFixed(0), 9)}${pad(ratio.toFixed(2), 7)}${pad(route.errors, 8)}${pad(rssMb.toFixed(0), 8)}  ${ok ? "ok" : "MISSED"}`,
    );
  }
  const rssMet = phase.peakMb <= 300;
  met &&= rssMet;
  lines.push(`server peak RSS ${phase.peakMb.toFixed(0)} MB  ${rssMet ? "ok" : "MISSED"} (target <= 300 MB)`);
  lines.push(...phase.notes);
  return { lines, met };
}

try {
  await ensureSeeded();
  const bareBase = await startBare();
  const phases: Phase[] = [];
  for (const jobs of withJobs ? [false, true] : [false]) phases.push(await runPhase(jobs, bareBase));
  let allMet = true;
  const out: string[] = [];
  for (const phase of phases) {
    const { lines, met } = report(phase);
    allMet &&= met;
    out.push(...lines, "");
  }
  out.push(allMet ? "all targets met" : "some targets missed");
  process.stdout.write(`${out.join("\n")}\n`);
  process.exitCode = allMet ? 0 : 1;
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).message}\n`);
  process.exitCode = 2;
} finally {
  stopAll();
}
