/**
 * Soak: mixed public reads at a high rate against the real process on the embedded local chain
 * with its jobs running (the demo trades, sweeps run every few seconds), loopback only, bounded in
 * time. Prints error counts (anything but 2xx and 429), p50/p99 latency per minute, and RSS
 * samples so memory can be seen to stay flat.
 *
 *   bun run scripts/soak.ts [--minutes 10] [--concurrency 16]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const minutes = Math.min(Math.max(arg("minutes", 10), 0.1), 60);
const concurrency = Math.min(Math.max(arg("concurrency", 16), 1), 128);

const dataDir = mkdtempSync(join(tmpdir(), "cfl-soak-"));
const port = 30_000 + Math.floor(Math.random() * 20_000);
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const child = Bun.spawn([process.execPath, "run", join(import.meta.dir, "..", "src", "main.ts")], {
  env: {
    ...env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    RATE_LIMIT: "off",
    LOG_LEVEL: "warn",
    SWEEP_SCHEDULE: "*/5 * * * * *",
    PAYOUTS_SCHEDULE: "*/5 * * * * *",
    BURNS_SCHEDULE: "*/10 * * * * *",
    SWEEP_MIN_LAMPORTS: "1",
  },
  stdout: "ignore",
  stderr: "inherit",
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 200; i++) {
  if (
    await fetch(`${base}/api/cron/health`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await Bun.sleep(100);
}
const mints = ((await (await fetch(`${base}/api/tokens`)).json()) as { tokens: { mint: string }[] }).tokens.map(
  (t) => t.mint,
);
const paths = [
  "/api/tokens",
  "/api/tokens?sort=fees",
  "/api/tokens?sort=mcap",
  "/api/tokens?q=demo",
  "/api/stats",
  "/api/ledger",
  "/api/ledger?limit=100",
  "/api/cron/health",
  "/api/idp/alice_demo",
  "/api/proof",
  ...mints.map((m) => `/api/tokens/${m}`),
];

let errors = 0;
let limited = 0;
let requests = 0;
let window: number[] = [];
const endAt = Date.now() + minutes * 60_000;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function worker(): Promise<void> {
  for (let n = 0; Date.now() < endAt && n < 50_000_000; n++) {
    const path = paths[(Math.random() * paths.length) | 0]!;
    const t0 = performance.now();
    try {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      if (response.status === 429) limited++;
      else if (response.status >= 400) errors++;
    } catch {
      errors++;
    }
    window.push(performance.now() - t0);
    requests++;
  }
}

const reporter = setInterval(async () => {
  const sorted = window.sort((a, b) => a - b);
  const rss = await fetch(`${base}/api/cron/health`).then(
    () =>
      Number(
        Bun.spawnSync(["ps", "-o", "rss=", "-p", String(child.pid)])
          .stdout.toString()
          .trim(),
      ) / 1024,
    () => -1,
  );
  console.log(
    JSON.stringify({
      at: new Date().toISOString(),
      requests,
      errors,
      limited,
      windowRequests: sorted.length,
      p50ms: +pct(sorted, 0.5).toFixed(2),
      p99ms: +pct(sorted, 0.99).toFixed(2),
      rssMB: +rss.toFixed(1),
    }),
  );
  window = [];
}, 60_000);

await Promise.all(Array.from({ length: concurrency }, worker));
clearInterval(reporter);
const stats = await (await fetch(`${base}/api/stats`)).json();
console.log(
  JSON.stringify({
    done: true,
    minutes,
    requests,
    errors,
    limited,
    sweptLamports: (stats as { sweptLamports: string }).sweptLamports,
  }),
);
child.kill("SIGTERM");
await child.exited;
rmSync(dataDir, { recursive: true, force: true });
process.exit(errors === 0 ? 0 : 1);
