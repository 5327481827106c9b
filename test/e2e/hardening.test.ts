/** The hardening against the real process (the service's executable, test/helpers/executable.ts, on the embedded local chain). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePortsSync, sendChunked, sendHeadOnly } from "../helpers/socket";
import { serviceExecutable } from "../helpers/executable";

const MB = 1024 * 1024;

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    LOG_LEVEL: "error",
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    DEMO: "0",
    JOBS: "0",
    ...extra,
  };
}

async function refusedAtStart(extra: Record<string, string>): Promise<string> {
  const child = Bun.spawn([await serviceExecutable()], { env: baseEnv(extra), stderr: "pipe", stdout: "pipe" });
  expect(await child.exited).toBe(1);
  return (await new Response(child.stderr).text()).trim();
}

describe("refused at start", () => {
  test("a bearer secret under 32 characters, and an http PUBLIC_URL on a real chain, each in one line", async () => {
    const short = "only-twenty-chars-xx";
    const line = await refusedAtStart({ ADMIN_SECRET: short });
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain("ADMIN_SECRET");
    expect(line).not.toContain(short);
    const http = await refusedAtStart({
      CHAIN: "pump",
      RPC_URL: "https://rpc.example.com",
      MASTER_SECRET: "z".repeat(40),
      TREASURY_KEY: "abc",
      DEV_LOGIN: "0",
      DEMO: "0",
      PUBLIC_URL: "http://fees.example",
    });
    expect(http).toContain("PUBLIC_URL");
  }, 30_000);
});

describe("the running process", () => {
  let child: ReturnType<typeof Bun.spawn>;
  let dataDir: string;
  const [port] = freePortsSync(1) as [number];
  const base = `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cfl-hardening-"));
    child = Bun.spawn([await serviceExecutable()], {
      env: baseEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" }),
      stdout: "ignore",
      stderr: "inherit",
    });
    const started = Date.now();
    while (Date.now() - started < 30_000) {
      try {
        if ((await fetch(`${base}/api/cron/health`)).status === 200) return;
      } catch {
        // not listening yet
      }
      await Bun.sleep(100);
    }
    throw new Error("the service did not start");
  }, 40_000);

  afterAll(async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("HEAD /api/stats carries the rate-limit headers and counts against GET's limit", async () => {
    const head = await fetch(`${base}/api/stats`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("x-ratelimit-limit")).toBe("120");
    const get = await fetch(`${base}/api/stats`);
    expect(Number(get.headers.get("x-ratelimit-remaining"))).toBe(
      Number(head.headers.get("x-ratelimit-remaining")) - 1,
    );
  });

  test("40 MB chunked bodies are answered before they are sent whole: admin off 404, claim and intent 413", async () => {
    for (const [path, status, type] of [
      ["/api/admin/claims/pause", 404, "application/json"],
      ["/api/claim", 413, "application/json"],
      ["/api/launch/intent", 413, "application/json"],
      ["/api/launch/metadata", 413, "multipart/form-data; boundary=x"],
    ] as const) {
      const result = await sendChunked(
        port,
        path,
        { "content-type": type, origin: `http://localhost:${port}` },
        40 * MB,
      );
      expect({ path, status: result.status }).toEqual({ path, status });
      expect(JSON.parse(result.body)).toEqual({ error: expect.any(String) });
      expect(result.bytesSentBeforeAnswer).toBeLessThan(20 * MB);
    }
  }, 60_000);

  test("a Content-Length over the limit is refused at once, with no body sent at all", async () => {
    for (const path of ["/api/launch/metadata", "/api/launch/intent"]) {
      const answer = await sendHeadOnly(port, path, {
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(40 * MB),
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 413 });
    }
  });
});
