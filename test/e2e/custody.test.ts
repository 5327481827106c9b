/**
 * Custody controls through HTTP only, against the real process on `npm start`'s demo chain
 * (issue 43). Two services side by side:
 *
 * - with OUTFLOW_MAX_LAMPORTS_PER_HOUR below a demo claim: the claim is accepted, payouts halt on
 *   their own, `/api/me` says claims are paused and why, `/api/cron/health` names the halt;
 *   `POST /api/admin/resume {reason}` resumes them and the claim is paid exactly once;
 * - with PAYOUT_REVIEW_LAMPORTS below a claim: the payout waits as `held` until
 *   `POST /api/admin/payouts/:id/approve`, and is then paid exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair } from "@solana/web3.js";
import { type FeedPayoutEvent, type PayoutNow, payoutsNow } from "../helpers/payouts-feed";
import { demoClaimant, until } from "../helpers/demo";
import { freePortsSync } from "../helpers/socket";
import { answering, serviceExecutable } from "../helpers/executable";
import { appendTail, followStderr } from "../helpers/stderr";
import { overHttp, runJob } from "../helpers/cron";
import type { CronRun } from "../../src/jobs/cron-runs";

const CLAIM_LAMPORTS = 10_000_000n;
const ADMIN = "admin-secret-for-the-custody-e2e-0123456789";

interface Running {
  base: string;
  rpcUrl: string;
  child: ReturnType<typeof Bun.spawn>;
  dataDir: string;
  /** the last characters the process wrote to stderr, to explain a failed wait */
  stderrTail: string;
}

const running: Running[] = [];

async function start(env: Record<string, string>): Promise<Running> {
  // The RPC port and the next (its WebSocket), then the HTTP port: one pick, so they cannot overlap.
  const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "cfl-custody-"));
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
      ADMIN_SECRET: ADMIN,
      CRON_SECRET: ADMIN,
      ...env,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  const r: Running = { base, rpcUrl: `http://127.0.0.1:${rpcPort}`, child, dataDir, stderrTail: "" };
  followStderr(child.stderr, (text) => {
    r.stderrTail = appendTail(r.stderrTail, text);
  });
  running.push(r);
  return r;
}

async function claim(s: Running, cookie: string, wallet: string): Promise<{ payoutId: number; status: string }> {
  const res = await fetch(`${s.base}/api/claim`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.base, cookie },
    body: JSON.stringify({ wallet, lamports: CLAIM_LAMPORTS.toString() }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { payoutId: number; status: string };
}

async function admin(s: Running, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${s.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A whole payouts run that starts after this call: what it leaves unsent, it was not allowed to send. */
const payoutsRunFromNow = (s: Running): Promise<CronRun> => runJob(overHttp(s.base), "payouts", ADMIN);

async function payoutsOf(s: Running, handle: string): Promise<PayoutNow[]> {
  const { events } = (await (await fetch(`${s.base}/api/ledger?limit=60`)).json()) as { events: FeedPayoutEvent[] };
  return payoutsNow(events, handle);
}

let capped: Running;
let reviewed: Running;

beforeAll(async () => {
  capped = await start({ OUTFLOW_MAX_LAMPORTS_PER_HOUR: String(CLAIM_LAMPORTS - 1n) });
  reviewed = await start({ PAYOUT_REVIEW_LAMPORTS: String(CLAIM_LAMPORTS - 1n) });
  for (const s of [capped, reviewed]) await answering(s.child, `${s.base}/api/stats`, () => s.stderrTail, 30_000);
}, 60_000);

afterAll(async () => {
  for (const s of running) {
    s.child.kill("SIGTERM");
    await s.child.exited;
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}, 30_000);

describe("custody controls, through HTTP against the running service", () => {
  test("a claim over the hourly outflow cap halts payouts until an operator resumes; then it is paid once", async () => {
    const { handle, cookie } = await demoClaimant(capped.base, CLAIM_LAMPORTS);
    const wallet = Keypair.generate().publicKey;
    expect((await claim(capped, cookie, wallet.toBase58())).status).toBe("queued");
    const health = await until("the halt", 30_000, async () => {
      const h = (await (await fetch(`${capped.base}/api/cron/health`)).json()) as {
        ok: boolean;
        halted: { kind: string } | null;
      };
      return h.halted ? h : null;
    });
    expect(health).toMatchObject({ ok: false, halted: { kind: "outflow-hour" } });
    const me = (await (await fetch(`${capped.base}/api/me`, { headers: { cookie } })).json()) as {
      claimsPaused: boolean;
      claimsPausedReason: string | null;
    };
    expect(me.claimsPaused).toBe(true);
    expect(me.claimsPausedReason).toContain("hourly limit");
    // Nothing left while halted: a whole run after the halt sent nothing.
    expect((await payoutsRunFromNow(capped)).state).toBe("succeeded");
    expect((await payoutsOf(capped, handle)).map((p) => p.status)).toEqual(["queued"]);
    const connection = new Connection(capped.rpcUrl, "confirmed");
    expect(await connection.getBalance(wallet)).toBe(0);

    expect((await admin(capped, "/api/admin/resume", { reason: "a known demo claim" })).status).toBe(200);
    const paid = await until("the payout confirmed", 60_000, async () => {
      const list = await payoutsOf(capped, handle);
      return list[0]?.status === "confirmed" ? list : null;
    });
    expect(paid.length).toBe(1);
    expect(BigInt(await connection.getBalance(wallet))).toBe(CLAIM_LAMPORTS);
    const after = (await (await fetch(`${capped.base}/api/me`, { headers: { cookie } })).json()) as {
      claimsPaused: boolean;
    };
    expect(after.claimsPaused).toBe(false);
  }, 240_000);

  test("a claim above the review amount waits as held until approved; then it is paid once", async () => {
    const { handle, cookie } = await demoClaimant(reviewed.base, CLAIM_LAMPORTS);
    const wallet = Keypair.generate().publicKey;
    const queued = await claim(reviewed, cookie, wallet.toBase58());
    expect(queued.status).toBe("held");
    expect((await payoutsRunFromNow(reviewed)).state).toBe("succeeded");
    expect((await payoutsOf(reviewed, handle)).map((p) => p.status)).toEqual(["held"]);
    const held = (await admin(reviewed, "/api/admin/payouts/held")).body as { payouts: { payoutId: number }[] };
    expect(held.payouts.map((p) => p.payoutId)).toEqual([queued.payoutId]);
    expect(
      (await admin(reviewed, `/api/admin/payouts/${queued.payoutId}/approve`, { reason: "looked at it" })).status,
    ).toBe(200);
    const paid = await until("the payout confirmed", 60_000, async () => {
      const list = await payoutsOf(reviewed, handle);
      return list[0]?.status === "confirmed" ? list : null;
    });
    expect(paid.length).toBe(1);
    const connection = new Connection(reviewed.rpcUrl, "confirmed");
    expect(BigInt(await connection.getBalance(wallet))).toBe(CLAIM_LAMPORTS);
  }, 240_000);
});
