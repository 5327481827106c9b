/**
 * Lighthouse's four scores (performance, accessibility, best practices, SEO) of the page as a
 * visitor meets it: Explore (`/`), a token page, an account page and the signed-in page, served
 * by the real app (compression, hashed assets, CSP) over loopback from a seeded database.
 *
 *   bun run audit:page [-- --preset desktop] [--min 98] [--details]
 *
 * Lighthouse (pinned to 12.2.3, which runs on Node 20) runs under Node from its own CLI, driving
 * the Debian Chromium (`CHROME_PATH`, default /usr/bin/chromium) headless; the default preset is
 * Lighthouse's mobile one (a mid-range phone on a slow 4G link, simulated). Exits 1 when a score is
 * below `--min` (98).
 */
import { spawn } from "bun";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createSession, sessionCookieName } from "../src/auth";
import { testConfig } from "../src/config";
import { setLogSilent } from "../src/lib/log";
import { takeSnapshot } from "../src/liabilities";
import { buildService } from "../src/service";
import { seedDatabase } from "./seed";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const preset = arg("--preset", "mobile");
const minimum = Number(arg("--min", "98"));
/** also list each page's audits that did not pass, with what they measured */
const details = args.includes("--details");
/** audit only the pages whose name contains this (e.g. `--only Signed`) */
const only = arg("--only", "");
const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const LIGHTHOUSE_CLI = join(import.meta.dir, "..", "node_modules", "lighthouse", "cli", "index.js");
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

setLogSilent(true);
const dataDir = `/tmp/cfl-audit-${crypto.randomUUID()}`;
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => service.app.handle(request) });
const base = `http://127.0.0.1:${server.port}`;
const config = testConfig({ DATA_DIR: dataDir, PUBLIC_URL: base, RATE_LIMIT: "off" });
const service = buildService(config, { chain: null });

try {
  const seeded = seedDatabase(service.ctx.db, { tokens: 60, seed: 11, days: 90 });
  // The seed's avatars live on a made-up host that no resolver knows: left as they are, every
  // account page would log a failed load that the page itself is not to blame for.
  for (const table of ["identities", "handles"]) service.ctx.db.$client.run(`UPDATE ${table} SET avatar_url = ''`);
  // As after any sweep or payout run: a published liabilities snapshot for the signed-in page to check.
  takeSnapshot(service.ctx.db, Date.now());
  const mint = seeded.samples.mints[0]!;
  const handle = seeded.samples.pinnedHandles[0] ?? seeded.samples.handles[0]!;
  const owner = service.ctx.db.$client
    .query<{ idp: string }, [string]>("SELECT idp_user_id AS idp FROM identities WHERE handle = ?")
    .get(handle.toLowerCase());
  if (!owner) throw new Error(`the seeded handle @${handle} is not pinned to an account`);
  const session = createSession(service.ctx.db, owner.idp, Date.now());
  const cookie = `${sessionCookieName(config)}=${session.token}`;

  const pages: { name: string; path: string; cookie?: string }[] = [
    { name: "Explore", path: "/" },
    { name: "Token", path: `/token/${mint}` },
    { name: "Account", path: `/idp/${handle}` },
    { name: "Signed in", path: "/me", cookie },
  ];
  // The page builds its bundle on the first request; the audit measures what visitors get after.
  await service.app.handle(new Request(`${base}/`));

  const rows: { name: string; scores: number[] }[] = [];
  for (const p of pages.filter((x) => x.name.includes(only))) {
    const scores = await lighthouse(`${base}${p.path}`, p.cookie);
    rows.push({ name: p.name, scores });
    console.log(`${p.name.padEnd(10)} ${scores.map((s) => String(s).padStart(4)).join(" ")}  ${p.path}`);
  }
  console.log(`\nLighthouse ${preset} preset, ${CATEGORIES.join(" / ")}; target: every score >= ${minimum}`);
  const below = rows.flatMap((r) =>
    r.scores.flatMap((s, i) => (s < minimum ? [`${r.name} ${CATEGORIES[i]} ${s}`] : [])),
  );
  if (below.length > 0) {
    console.log(`Below target: ${below.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  await server.stop(true);
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** The four category scores (0 to 100) of one URL, from Lighthouse's JSON report. */
async function lighthouse(url: string, cookie?: string): Promise<number[]> {
  const command = [
    "node",
    LIGHTHOUSE_CLI,
    url,
    "--output=json",
    "--output-path=stdout",
    "--quiet",
    `--only-categories=${CATEGORIES.join(",")}`,
    "--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run",
    ...(preset === "desktop" ? ["--preset=desktop"] : []),
    ...(cookie ? [`--extra-headers=${JSON.stringify({ Cookie: cookie })}`] : []),
  ];
  const child = spawn(command, { env: { ...process.env, CHROME_PATH: chromePath }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`lighthouse failed on ${url} (exit ${code}): ${err.slice(-2000)}`);
  const report = JSON.parse(out) as {
    categories: Record<string, { score: number | null }>;
    audits: Record<string, { score: number | null; title: string; displayValue?: string; scoreDisplayMode: string }>;
    runtimeError?: { message?: string };
  };
  if (report.runtimeError?.message) throw new Error(`lighthouse on ${url}: ${report.runtimeError.message}`);
  if (details) {
    for (const [id, a] of Object.entries(report.audits)) {
      if (a.score === null || a.score >= 1 || (a.scoreDisplayMode !== "binary" && a.scoreDisplayMode !== "numeric"))
        continue;
      console.log(`  ${id} ${a.score}: ${a.title}${a.displayValue ? ` (${a.displayValue})` : ""}`);
    }
  }
  return CATEGORIES.map((c) => Math.round((report.categories[c]?.score ?? 0) * 100));
}
