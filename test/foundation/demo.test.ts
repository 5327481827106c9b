/**
 * What a newcomer sees after the README's start command: demo tokens on the embedded local chain,
 * fees accruing from the trade simulator, a sweep landing, and a demo recipient who signs in with
 * dev login and finds a balance to claim.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const main = join(import.meta.dir, "..", "..", "src", "main.ts");

describe("the demo on the embedded defaults", () => {
  test("demo tokens accrue fees, a sweep credits them, and a demo recipient signed in by dev login has a balance", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cfl-demo-"));
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const child = Bun.spawn([process.execPath, "run", main], {
      env: {
        ...env, DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: base, LOCAL_CHAIN_RPC_PORT: "0", LOCAL_CHAIN_GRPC_PORT: "0",
        LOCAL_CHAIN_SLOT_MS: "100", CRON_SECRET: "demo-cron-secret-for-tests-0123456789", SWEEP_MIN_LAMPORTS: "1", LOG_LEVEL: "warn", JOBS: "0",
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    try {
      const deadline = Date.now() + 20_000;
      let tokens: { mint: string; recipients: { handle: string }[] }[] = [];
      while (Date.now() < deadline && tokens.length === 0) {
        tokens = await fetch(`${base}/api/tokens`).then((r) => (r.ok ? r.json() : { tokens: [] }), () => ({ tokens: [] })).then((b) => b.tokens);
        if (tokens.length === 0) await Bun.sleep(200);
      }
      expect(tokens.length).toBe(5);
      const handles = new Set(tokens.flatMap((t) => t.recipients.map((r) => r.handle)));
      expect(handles.has("alice_demo")).toBe(true);

      // The simulator trades on its own; sweep until a demo recipient has been credited.
      let swept = 0n;
      let aliceCredited = 0n;
      for (let i = 0; i < 40 && aliceCredited === 0n; i++) {
        await Bun.sleep(500);
        const run = await fetch(`${base}/api/cron/sweep`, { method: "POST", headers: { authorization: "Bearer demo-cron-secret-for-tests-0123456789" } });
        expect(run.status).toBe(200);
        aliceCredited = BigInt((await (await fetch(`${base}/api/idp/alice_demo`)).json()).creditedLamports);
      }
      // The feed shows the confirmed sweeps that credited her.
      const { events } = await (await fetch(`${base}/api/ledger`)).json();
      for (const e of events) if (e.type === "sweep") swept += BigInt(e.totalLamports);
      expect(aliceCredited).toBeGreaterThan(0n);
      expect(swept).toBeGreaterThan(aliceCredited);

      const login = await fetch(`${base}/api/auth/dev-login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base },
        body: JSON.stringify({ handle: "alice_demo" }),
      });
      expect(login.status).toBeLessThan(400);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
      const me = await (await fetch(`${base}/api/me`, { headers: { cookie } })).json();
      expect(me.signedIn).toBe(true);
      expect(me.handle).toBe("alice_demo");
      expect(BigInt(me.creditedLamports)).toBe(aliceCredited);
      expect(me.balanceLamports).toBe(me.creditedLamports);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
