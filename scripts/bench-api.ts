/**
 * Benchmark of the public reads at scale: seeds 100,000 tokens (about 1M sweeps and 1M ledger
 * events; the seeded database is cached and reused), starts the real server (`src/main.ts`) on it,
 * and drives each read with a bounded loopback load generator for a fixed time, next to a bare
 * route returning a constant JSON body of the same size, served by a separate Elysia process in
 * the same run. Prints requests/s, p50 and p99 per read, the ratio to the bare route and the
 * server's peak RSS, and checks the targets (ratio >= 0.3, p99 < 25 ms, RSS < 300 MB).
 *
 *   bun run bench:api [-- --tokens 100000 --seconds 5 --connections 8 --dir data/bench --churn-ms 0]
 *
 * Rendered public answers are remembered until the database changes (src/http/read-memo.ts). With
 * `--churn-ms N` a second connection writes a bench-only setting every N ms while measuring, so
 * that memo keeps being invalidated as on a busy deployment whose jobs write all the time.
 *
 * The load generator is Bun's own fetch over keep-alive connections, so nothing needs installing;
 * it shares the machine with the server, as does the bare route's, so the ratio stays fair.
 */
import { spawn, type Subprocess } from "bun";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

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
    const found = bodies.get(bytes);
    if (found) return found;
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
const root = resolve(arg("--dir", "data/bench"));
const dataDir = join(root, `tokens-${tokens}-seed-${seed}`);
const marker = join(dataDir, "seeded.json");
const here = import.meta.dir;
const repo = resolve(here, "..");

function log(line: string) {
  process.stderr.write(`bench: ${line}\n`);
}

async function ensureSeeded(): Promise<void> {
  if (existsSync(marker)) {
    log(`reusing the seeded database in ${dataDir}`);
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

/** Closed-loop load: `connections` workers, each sending its next request when the last answered. */
async function load(name: string, urls: string[], durationS: number): Promise<Result> {
  const warmupEnd = performance.now() + 500;
  const end = warmupEnd + durationS * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let n = 0;
  const worker = async (w: number) => {
    let i = w;
    for (;;) {
      const started = performance.now();
      if (started >= end) return;
      const url = urls[i++ % urls.length]!;
      try {
        const r = await fetch(url);
        const body = await r.arrayBuffer();
        if (r.status !== 200) errors++;
        const done = performance.now();
        if (started >= warmupEnd) {
          latencies.push(done - started);
          bytes += body.byteLength;
          n++;
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)));
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return {
    name,
    requests: n,
    errors,
    rps: n / durationS,
    p50: q(0.5),
    p99: q(0.99),
    bytes: n ? Math.round(bytes / n) : 0,
  };
}

/** The parts of the public pages the bench reads to build its request pools. */
interface TokensPage {
  tokens: { mint: string; recipients: { handle: string }[] }[];
  nextCursor: string | null;
}
interface LedgerPage {
  nextBefore: string | null;
}

async function json<T>(url: string): Promise<T> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return (await r.json()) as T;
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

try {
  await ensureSeeded();
  const port = await freePort();
  log("starting the server");
  server = spawn([process.execPath, join(repo, "src/main.ts")], {
    cwd: repo,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      RATE_LIMIT: "off",
      JOBS: "off",
      DEMO: "off",
      LOG_LEVEL: "warn",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/stats`, 120_000);

  bare = spawn([process.execPath, join(here, "bench-api.ts"), "--bare"], { stdout: "pipe", stderr: "inherit" });
  const first = await (bare.stdout as ReadableStream<Uint8Array>).getReader().read();
  const bareLine = new TextDecoder().decode(first.value);
  const barePort = JSON.parse(bareLine.trim().split("\n")[0]!).port as number;
  const bareBase = `http://127.0.0.1:${barePort}`;

  // ---------------------------------------------------------------- request pools
  log("collecting request pools (mints, handles, cursors, deep ledger positions)");
  const sample = (await json<TokensPage>(`${base}/api/tokens?sort=new&limit=60`)).tokens;
  const cursorsOf = async (sort: string, pages: number) => {
    const urls = [`${base}/api/tokens?sort=${sort}`];
    let cursor: string | null = null;
    for (let p = 0; p < pages; p++) {
      const body: TokensPage = await json<TokensPage>(
        `${base}/api/tokens?sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      cursor = body.nextCursor;
      if (!cursor) break;
      urls.push(`${base}/api/tokens?sort=${sort}&cursor=${encodeURIComponent(cursor)}`);
    }
    return urls;
  };
  const mints: string[] = [];
  for (const sort of ["new", "fees", "mcap"]) {
    const body = await json<TokensPage>(`${base}/api/tokens?sort=${sort}&limit=60`);
    mints.push(...body.tokens.map((t) => t.mint));
  }
  const handles = [...new Set(sample.flatMap((t) => t.recipients.map((r) => r.handle)))].slice(0, 100);
  const fragments = ["pepe", "moon", "frog", "rocket", "laser", "diamond", "turbo", "pixel", "based", "wojak"];
  const ledgerUrls = [`${base}/api/ledger`];
  {
    // Positions spread deep into the feed: every 20th page of 100 events, up to 100,000 events back.
    let before: string | null = null;
    for (let p = 0; p < 1000; p++) {
      const body: LedgerPage = await json<LedgerPage>(
        `${base}/api/ledger?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`,
      );
      before = body.nextBefore;
      if (!before) break;
      if (p % 20 === 19) ledgerUrls.push(`${base}/api/ledger?before=${encodeURIComponent(before)}`);
    }
  }
  const targets: { name: string; urls: string[] }[] = [
    { name: "tokens sort=new", urls: await cursorsOf("new", 40) },
    { name: "tokens sort=fees", urls: await cursorsOf("fees", 40) },
    { name: "tokens sort=mcap", urls: await cursorsOf("mcap", 40) },
    {
      name: "tokens q=",
      urls: [
        ...fragments.map((q) => `${base}/api/tokens?q=${q}`),
        ...handles.slice(0, 20).map((h) => `${base}/api/tokens?q=%40${h}`),
        ...mints.slice(0, 10).map((m) => `${base}/api/tokens?q=${m}`),
      ],
    },
    { name: "token detail", urls: mints.map((m) => `${base}/api/tokens/${m}`) },
    { name: "account", urls: handles.map((h) => `${base}/api/idp/${h}`) },
    { name: "stats", urls: [`${base}/api/stats`] },
    { name: "ledger (deep pages)", urls: ledgerUrls },
  ];
  // Touch every URL once, so one-off costs (the vault refresh of a stale reading) are not measured.
  for (const t of targets) for (const url of t.urls) await fetch(url).then((r) => r.arrayBuffer());

  // ---------------------------------------------------------------- runs
  let churn: ReturnType<typeof setInterval> | null = null;
  if (churnMs > 0) {
    const { Database } = await import("bun:sqlite");
    const writer = new Database(join(dataDir, "service.db"));
    writer.exec("PRAGMA busy_timeout = 1000");
    const tick = writer.prepare(
      "INSERT INTO settings (key, value) VALUES ('bench_tick', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1",
    );
    let n = 0;
    churn = setInterval(() => tick.run(String(n++)), churnMs);
  }
  const rows: { route: Result; bare: Result }[] = [];
  for (const t of targets) {
    log(`measuring ${t.name} for ${seconds} s with ${connections} connections`);
    const route = await load(t.name, t.urls, seconds);
    const bareResult = await load(`bare ${route.bytes} B`, [`${bareBase}/bare/${route.bytes}`], seconds);
    rows.push({ route, bare: bareResult });
  }
  if (churn) clearInterval(churn);
  const { rssMb, peakMb } = rssOf(server.pid);

  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [
    `public reads at ${tokens.toLocaleString("en")} tokens, ${connections} connections, ${seconds} s each${churnMs > 0 ? `, a write every ${churnMs} ms` : ", no writes"}`,
    `${"read".padEnd(22)}${pad("req/s", 9)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}${pad("bytes", 9)}${pad("bare/s", 9)}${pad("ratio", 7)}${pad("errors", 8)}  targets`,
  ];
  let allMet = true;
  for (const { route, bare: b } of rows) {
    const ratio = route.rps / b.rps;
    const met = ratio >= 0.3 && route.p99 < 25 && route.errors === 0;
    allMet &&= met;
    lines.push(
      `${route.name.padEnd(22)}${pad(route.rps.toFixed(0), 9)}${pad(route.p50.toFixed(2), 9)}${pad(route.p99.toFixed(2), 9)}${pad(route.bytes, 9)}${pad(b.rps.toFixed(0), 9)}${pad(ratio.toFixed(2), 7)}${pad(route.errors, 8)}  ${met ? "ok" : "MISSED"}`,
    );
  }
  const rssMet = peakMb < 300;
  allMet &&= rssMet;
  lines.push(
    `server RSS ${rssMb.toFixed(0)} MB now, ${peakMb.toFixed(0)} MB peak  ${rssMet ? "ok" : "MISSED"} (target < 300 MB)`,
  );
  lines.push(allMet ? "all targets met" : "some targets missed");
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exitCode = allMet ? 0 : 1;
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).message}\n`);
  process.exitCode = 2;
} finally {
  stopAll();
}
