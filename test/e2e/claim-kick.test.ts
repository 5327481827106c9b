/**
 * A claim starts its own payouts run: the real process on the demo's defaults (400 ms slots), with
 * the payouts schedule moved to once a year so that only the claim can start the run that sends
 * it. Before, a claim waited for the schedule's next minute (30-49 s from click to confirmed). The
 * time from the claim to confirmed is printed: the rest is the chain's finality (32 slots), which
 * the service waits for before a payout counts as paid.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { serviceExecutable } from "../helpers/executable";
import { type FeedPayoutEvent, type PayoutNow, payoutsNow } from "../helpers/payouts-feed";
import { demoClaimant, until } from "../helpers/demo";
import { freePortsSync } from "../helpers/socket";

const CLAIM_LAMPORTS = 10_000_000n;
const [port] = freePortsSync(1) as [number];
const base = `http://127.0.0.1:${port}`;
let child: ReturnType<typeof Bun.spawn>;
let dataDir: string;

/** The handle's payouts in the public feed; none yet when the feed answers otherwise (429 over its limit). */
async function payoutsOf(handle: string): Promise<PayoutNow[]> {
  const res = await fetch(`${base}/api/ledger?limit=100`);
  if (res.status !== 200) return [];
  const { events } = (await res.json()) as { events: FeedPayoutEvent[] };
  return payoutsNow(events, handle);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cfl-claim-kick-"));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  child = Bun.spawn([await serviceExecutable()], {
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: base,
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      // Once a year: no scheduled run sends the claim within the test.
      PAYOUTS_SCHEDULE: "0 0 1 1 *",
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  await until("the service", 60_000, async () =>
    fetch(`${base}/api/stats`).then(
      (r) => (r.ok ? true : null),
      () => null,
    ),
  );
}, 90_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await child?.exited;
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

test("a claim is sent by the payouts run it starts, not by the schedule, and confirmed", async () => {
  const { handle, cookie } = await demoClaimant(base, CLAIM_LAMPORTS, { timeoutMs: 240_000 });
  const wallet = Keypair.generate().publicKey.toBase58();
  const clickedAt = Date.now();
  const res = await fetch(`${base}/api/claim`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify({ wallet, lamports: CLAIM_LAMPORTS.toString() }),
  });
  expect(res.status).toBe(200);
  const sent = await until("the claim sent", 120_000, async () => {
    const payout = (await payoutsOf(handle)).find((p) => p.signature !== null);
    return payout ?? null;
  });
  const sentMs = Date.now() - clickedAt;
  const confirmed = await until("the claim confirmed", 120_000, async () => {
    const payout = (await payoutsOf(handle)).find((p) => p.payoutId === sent.payoutId && p.status === "confirmed");
    return payout ?? null;
  });
  console.log(`claim: sent ${sentMs} ms and confirmed ${Date.now() - clickedAt} ms after the click`);
  expect(confirmed.lamports).toBe(CLAIM_LAMPORTS.toString());
}, 420_000);
