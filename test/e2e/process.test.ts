/** The service as a newcomer starts it: the real process, its configuration errors, its first answers. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Json, NOTHING_YET } from "../helpers/service";
import { freePortsSync } from "../helpers/socket";

const main = join(import.meta.dir, "..", "..", "src", "main.ts");

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, LOG_LEVEL: "warn", LOCAL_CHAIN_RPC_PORT: "0", LOCAL_CHAIN_GRPC_PORT: "0", ...extra };
}

describe("configuration", () => {
  test.each([
    ["PORT", "eighty", "PORT"],
    ["CHAIN", "mainnet", "CHAIN"],
    ["SWEEP_MIN_LAMPORTS", "1.5", "SWEEP_MIN_LAMPORTS"],
    ["RATE_LIMIT", "sometimes", "RATE_LIMIT"],
  ])("a bad %s stops the service with one line naming it", async (name, value, expected) => {
    const child = Bun.spawn([process.execPath, "run", main], {
      env: baseEnv({ [name]: value }),
      stderr: "pipe",
      stdout: "pipe",
    });
    const code = await child.exited;
    const stderr = await new Response(child.stderr).text();
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    expect(lines[0]).not.toContain(value);
  });

  test("a real chain without its secrets is refused without echoing any secret", async () => {
    const child = Bun.spawn([process.execPath, "run", main], {
      env: baseEnv({
        CHAIN: "pump",
        RPC_URL: "https://rpc.example.com/?api-key=topsecretkey",
        MASTER_SECRET: "x".repeat(40),
      }),
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(await child.exited).toBe(1);
    const out = (await new Response(child.stderr).text()) + (await new Response(child.stdout).text());
    expect(out).toContain("TREASURY_KEY");
    expect(out).not.toContain("topsecretkey");
    expect(out).not.toContain("x".repeat(40));
  });

  test("dev login is refused on a real chain", async () => {
    const child = Bun.spawn([process.execPath, "run", main], {
      env: baseEnv({
        CHAIN: "pump",
        RPC_URL: "https://rpc.example.com",
        MASTER_SECRET: "y".repeat(40),
        TREASURY_KEY: "abc",
        DEV_LOGIN: "1",
      }),
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(await child.exited).toBe(1);
    expect(await new Response(child.stderr).text()).toContain("DEV_LOGIN");
  });
});

describe("start", () => {
  test("the start command serves zero stats and the five jobs within 20 s, and stops on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cfl-start-"));
    const [port] = freePortsSync(1) as [number];
    const child = Bun.spawn([process.execPath, "run", main], {
      env: baseEnv({ DATA_DIR: dataDir, PORT: String(port), DEMO: "0" }),
      stdout: "ignore",
      stderr: "inherit",
    });
    const started = Date.now();
    let stats: Json = null;
    while (Date.now() - started < 20_000) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/stats`);
        if (response.status === 200) {
          stats = await response.json();
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(100);
    }
    expect(stats).not.toBeNull();
    expect(stats).toMatchObject(NOTHING_YET);
    const health = await (await fetch(`http://127.0.0.1:${port}/api/cron/health`)).json();
    expect(health.jobs.map((j: { job: string }) => j.job)).toEqual(["sweep", "payouts", "burns", "launches", "market"]);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  }, 40_000);
});
