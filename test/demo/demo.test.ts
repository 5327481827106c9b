/**
 * What a newcomer sees after the README's start command: demo tokens on the embedded local chain,
 * fees accruing from the trade simulator, a sweep landing, and a demo recipient who signs in with
 * dev login and finds a balance to claim, with nobody sweeping by hand.
 *
 * How soon is printed, not asserted: on a quiet two-core machine 23-44 s after start (the README's
 * "within a minute"), but with both cores busy beside the suite the start alone took 25 s and the
 * first sweep job 45 s, every step slower by the same factor. The bound below only stops a demo
 * that never credits anyone.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePortsSync } from "../helpers/socket";
import { DEMO_HANDLES } from "../helpers/demo";

const main = join(import.meta.dir, "..", "..", "src", "main.ts");

/** Five handles every 3 s: 100 account reads a minute, under the route's limit of 120. */
const POLL_MS = 3_000;
/** A demo that credits nobody by now is stuck, not slow */
const CREDIT_BOUND_MS = 240_000;

describe("the demo on the embedded defaults", () => {
  test(
    "a demo recipient signed in by dev login has a claimable balance, credited by the demo's own confirmed sweeps",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "cfl-demo-"));
      const [port] = freePortsSync(1) as [number];
      const base = `http://127.0.0.1:${port}`;
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      const startedAt = Date.now();
      // The README's start on its defaults (jobs, schedules, slot time, sweep minimum); only the
      // ports and the data directory are the test's own.
      const child = Bun.spawn([process.execPath, "run", main], {
        env: {
          ...env,
          DATA_DIR: dataDir,
          PORT: String(port),
          PUBLIC_URL: base,
          LOCAL_CHAIN_RPC_PORT: "0",
          LOCAL_CHAIN_GRPC_PORT: "0",
          // DEMO_TEST_LOG_LEVEL=info shows why a first minute was slow (the service logs to stderr).
          LOG_LEVEL: process.env.DEMO_TEST_LOG_LEVEL ?? "warn",
        },
        // The service logs to stdout: shown when a level is asked for.
        stdout: process.env.DEMO_TEST_LOG_LEVEL ? "inherit" : "ignore",
        stderr: "inherit",
      });
      try {
        const deadline = startedAt + CREDIT_BOUND_MS;
        let tokens: { mint: string; recipients: { handle: string }[] }[] = [];
        while (Date.now() < deadline && tokens.length === 0) {
          tokens = await fetch(`${base}/api/tokens`)
            .then(
              (r) => (r.ok ? r.json() : { tokens: [] }),
              () => ({ tokens: [] }),
            )
            .then((b) => b.tokens);
          if (tokens.length === 0) await Bun.sleep(200);
        }
        expect(tokens.length).toBe(5);
        const handles = new Set(tokens.flatMap((t) => t.recipients.map((r) => r.handle)));
        expect([...handles].sort()).toEqual(DEMO_HANDLES);

        // Nobody sweeps by hand: the demo's own early sweeps must credit someone past the claim threshold.
        // Polled within the account route's public limit (120 a calendar minute per address): at five
        // handles a second the poller itself was refused with 429 before the first sweep landed, and
        // skipping those answers hid a balance credited at ~26 s until the next minute.
        let claimant: string | null = null;
        let credited = 0n;
        while (claimant === null && Date.now() < deadline) {
          await Bun.sleep(POLL_MS);
          for (const handle of DEMO_HANDLES) {
            const res = await fetch(`${base}/api/idp/${handle}`);
            expect(res.status).toBe(200);
            const c = BigInt((await res.json()).creditedLamports);
            if (c >= 10_000_000n) {
              claimant = handle;
              credited = c;
              break;
            }
          }
        }
        const elapsedMs = Date.now() - startedAt;
        console.log(`demo: ${claimant ?? "nobody"} credited ${credited} lamports after ${elapsedMs} ms`);
        expect(claimant).not.toBeNull();

        const login = await fetch(`${base}/api/auth/dev-login`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: base },
          body: JSON.stringify({ handle: claimant }),
        });
        expect(login.status).toBeLessThan(400);
        const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
        const me = await (await fetch(`${base}/api/me`, { headers: { cookie } })).json();
        expect(me.signedIn).toBe(true);
        expect(me.handle).toBe(claimant);
        expect(BigInt(me.balanceLamports)).toBeGreaterThanOrEqual(BigInt(me.minClaimLamports));
        expect(BigInt(me.creditedLamports)).toBeGreaterThanOrEqual(credited);

        // The feed shows the confirmed sweeps that credited it.
        const { events } = await (await fetch(`${base}/api/ledger`)).json();
        let swept = 0n;
        for (const e of events) if (e.type === "sweep") swept += BigInt(e.totalLamports);
        expect(swept).toBeGreaterThan(credited);
      } finally {
        child.kill("SIGTERM");
        await child.exited;
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    CREDIT_BOUND_MS + 30_000,
  );
});
