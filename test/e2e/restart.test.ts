/**
 * Restarting `npm start` with the same DATA_DIR continues the same local chain (issue 44): the demo
 * tokens are listed once, their fees keep accruing and being read, and a claim paid before the
 * restart is still on chain after it. Driven over HTTP and JSON-RPC only, as a newcomer would.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair } from "@solana/web3.js";
import { type FeedPayoutEvent, payoutsNow } from "../helpers/payouts-feed";
import { freePortsSync } from "../helpers/socket";
import { serviceExecutable } from "../helpers/executable";
import { DEMO_HANDLES } from "../helpers/demo";

const CLAIM_LAMPORTS = 10_000_000n;
const dataDir = mkdtempSync(join(tmpdir(), "cfl-restart-"));

interface Running {
  base: string;
  rpcUrl: string;
  child: ReturnType<typeof Bun.spawn>;
}

interface TokenRow {
  mint: string;
  name: string;
  sweptLamports: string;
  vaultLamports: string;
  vaultCheckedAt: string;
}

let current: Running | null = null;

async function start(): Promise<Running> {
  // The RPC port and the next (its WebSocket), then the HTTP port: one pick, so they cannot overlap.
  const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
  const base = `http://127.0.0.1:${port}`;
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) inherited[k] = v;
  const child = Bun.spawn([await serviceExecutable()], {
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: base,
      LOCAL_CHAIN_RPC_PORT: String(rpcPort),
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_SLOT_MS: "100",
      PAYOUTS_SCHEDULE: "*/2 * * * * *",
      RATE_LIMIT: "0",
      LOG_LEVEL: "warn",
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  current = { base, rpcUrl: `http://127.0.0.1:${rpcPort}`, child };
  return current;
}

async function stop(s: Running): Promise<number> {
  s.child.kill("SIGTERM");
  const code = await s.child.exited;
  current = null;
  return code;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(250);
  }
}

async function ready(s: Running): Promise<void> {
  await until("the service", 60_000, async () => ((await fetch(`${s.base}/api/stats`)).ok ? true : null));
}

async function tokens(s: Running): Promise<TokenRow[]> {
  const body = (await (await fetch(`${s.base}/api/tokens?limit=60`)).json()) as { tokens: TokenRow[] };
  return body.tokens;
}

/** Fees a token has earned as the service knows them: swept plus the last vault reading. */
function earned(rows: TokenRow[]): bigint {
  return rows.reduce((sum, t) => sum + BigInt(t.sweptLamports) + BigInt(t.vaultLamports), 0n);
}

afterAll(async () => {
  if (current) await stop(current);
  rmSync(dataDir, { recursive: true, force: true });
});

test("a restart with the same DATA_DIR continues the chain, the demo and the claims paid", async () => {
  const first = await start();
  await ready(first);
  const demo = await until("the five demo tokens", 120_000, async () => {
    const rows = await tokens(first);
    return rows.length >= 5 ? rows : null;
  });
  const { handle, cookie } = await until("a demo balance to claim", 120_000, async () => {
    for (const handle of DEMO_HANDLES) {
      const res = await fetch(`${first.base}/api/idp/${handle}`);
      if (res.status !== 200) continue;
      const { balanceLamports } = (await res.json()) as { balanceLamports: string };
      if (BigInt(balanceLamports) < CLAIM_LAMPORTS) continue;
      const login = await fetch(`${first.base}/api/auth/dev-login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: first.base },
        body: JSON.stringify({ handle }),
      });
      return { handle, cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]! };
    }
    await Bun.sleep(1_000);
    return null;
  });
  const wallet = Keypair.generate().publicKey;
  const claimed = await fetch(`${first.base}/api/claim`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: first.base, cookie },
    body: JSON.stringify({ wallet: wallet.toBase58(), lamports: CLAIM_LAMPORTS.toString() }),
  });
  expect(claimed.status).toBe(200);
  const paid = await until("the claim paid", 120_000, async () => {
    const { events } = (await (await fetch(`${first.base}/api/ledger?limit=60`)).json()) as {
      events: FeedPayoutEvent[];
    };
    return payoutsNow(events, handle).find((p) => p.status === "confirmed") ?? null;
  });
  expect(paid.signature).toBeTruthy();
  const firstRpc = new Connection(first.rpcUrl, "confirmed");
  expect(BigInt(await firstRpc.getBalance(wallet))).toBe(CLAIM_LAMPORTS);
  const earnedBefore = earned(await tokens(first));
  expect(await stop(first)).toBe(0);

  const second = await start();
  await ready(second);
  const rpc = new Connection(second.rpcUrl, "confirmed");
  // The claim is on the continued chain: the wallet's lamports and the payout's transaction.
  expect(BigInt(await rpc.getBalance(wallet))).toBe(CLAIM_LAMPORTS);
  const status = await rpc.getSignatureStatuses([paid.signature!], { searchTransactionHistory: true });
  expect(status.value[0]?.err).toBeNull();
  // Give the demo time to decide, then: the same five tokens, each listed once.
  await Bun.sleep(3_000);
  const listed = await tokens(second);
  expect(listed.map((t) => t.mint).sort()).toEqual(demo.map((t) => t.mint).sort());
  expect(new Set(listed.map((t) => t.name)).size).toBe(listed.length);
  // Their fees keep accruing on the continued chain and the service keeps reading them.
  await until("fees earned after the restart", 120_000, async () =>
    earned(await tokens(second)) > earnedBefore ? true : null,
  );
  expect(await stop(second)).toBe(0);
}, 420_000);
