/**
 * What a resume lets out (issue 61, item 10): exactly the rows that waited when the operator
 * confirmed, by id, each once; everything after them counts against the outflow caps, across
 * resumes; a resume with nothing halted, or while the reconciliation holds money, does nothing and
 * says so. And the review amount applies to an account's payouts over a rolling day, not to each.
 * Against the embedded local chain, the jobs as they run in production and the admin API.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { immediate } from "../../db/transaction";
import { testConfig } from "../../src/config";
import { listIncidents, moneyHalt, resumeMoney, waitingOutflow } from "../../src/custody";
import { accountFigures } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger";
import { queuePayout, refuseHeldPayout } from "../../src/payouts";
import { holdForReconciliation } from "../../src/reconcile";
import { buildService } from "../../src/service";
import { setupBurns, setupPayouts } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

const ADMIN = "admin-secret-for-resume-tests-0123456789";
const DAY_MS = 86_400_000;
const cleanups: (() => Promise<void> | void)[] = [];
let w: World | null = null;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await w?.close();
  w = null;
});

// biome-ignore lint/suspicious/noExplicitAny: test-side JSON, checked by the assertions that read it
type Json = any;

/** The HTTP service on the world's own database and chain, with the admin credential. */
function http(world: World) {
  const config = testConfig({ DATA_DIR: world.dir, ADMIN_SECRET: ADMIN });
  const service = buildService(config, { chain: world.chain });
  cleanups.push(() => service.close());
  return async (path: string, body?: unknown) => {
    const headers = new Headers({ authorization: `Bearer ${ADMIN}` });
    if (body !== undefined) headers.set("content-type", "application/json");
    const res = await service.app.handle(
      new Request(`http://localhost${path}`, {
        method: body !== undefined ? "POST" : "GET",
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
}

const statuses = (world: World) =>
  world.db.$client
    .query<{ status: string }, []>("SELECT status FROM payouts ORDER BY id")
    .all()
    .map((r) => r.status);

/** An operator's resume of what waits now, as a script or the API without ids does it. */
function resume(world: World) {
  return immediate(world.db, () =>
    resumeMoney(world.db, {
      actor: "test",
      reason: "looked at what waits",
      atMs: Date.now(),
      release: waitingOutflow(world.db),
    }),
  );
}

const capOf = (lamports: bigint) => ({ OUTFLOW_MAX_LAMPORTS_PER_HOUR: String(lamports) });
const sum = (amounts: Iterable<bigint>) => [...amounts].reduce((a, b) => a + b, 0n);

/** More fees for `handle`'s token, swept: its account can claim again. */
async function moreFees(world: World, handle: string, lamports: bigint): Promise<void> {
  const token = world.db.$client
    .query<{ mint: string }, [string]>(
      "SELECT t.mint FROM tokens t JOIN token_recipients r ON r.token_id = t.id WHERE r.handle = ? ORDER BY t.id LIMIT 1",
    )
    .get(handle)!;
  world.trade(token.mint, lamports);
  expect(await world.run("sweep")).toMatchObject({ ran: true, ok: true });
}

function claim(world: World, id: string, wallet: string, lamports: bigint, atMs = Date.now(), reviewLamports?: bigint) {
  return queuePayout(world.db, {
    idpUserId: id,
    lamports,
    wallet,
    kind: "claim",
    minLamports: 1n,
    atMs,
    ...(reviewLamports === undefined ? {} : { reviewLamports }),
  });
}

describe("a resume releases exactly what waited", () => {
  test("a claim made after a resume counts against the hourly cap, though burn orders waited too", async () => {
    w = await moneyWorld();
    // Burn orders wait (the burns job does not run here) beside two claims.
    await setupBurns(w);
    const setup = await setupPayouts(w, 2, 0);
    expect(waitingOutflow(w.db).burnOrders.length).toBeGreaterThan(0);
    const total = sum(setup.amounts.values());
    const cap = capOf(total - 1n);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    resume(w);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "confirmed"]);

    // A claim after the resume, above the cap on its own: it halts money instead of going out.
    await moreFees(w, "p0", 40_000_000_000n);
    expect(accountFigures(w.db, "user", "u-p0").balanceLamports).toBeGreaterThanOrEqual(total);
    const wallet = setup.wallets.get("u-p0")!;
    const paidBefore = w.local.node.getBalance(new PublicKey(wallet));
    claim(w, "u-p0", wallet, total);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(statuses(w)).toEqual(["confirmed", "confirmed", "queued"]);
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(paidBefore);
    verifyLedger(w.db);
  }, 90_000);

  test("a second resume keeps what the first let out off the caps: what it releases goes out", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 1, 0);
    const first = setup.amounts.get("u-p0")!;
    const cap = capOf(first - 1n);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(resume(w).resolved).toBe(1);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed"]);

    // A second claim trips the cap again; the operator looks and resumes again.
    await moreFees(w, "p0", 10_000_000_000n);
    const wallet = setup.wallets.get("u-p0")!;
    claim(w, "u-p0", wallet, first);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(resume(w).resolved).toBe(1);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "confirmed"]);
    expect(moneyHalt(w.db)).toBeNull();
    expect(listIncidents(w.db, 10).filter((i) => i.resolvedAtMs === null)).toEqual([]);
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(2n * first);
  }, 90_000);

  test("a resume with nothing halted is refused and grants nothing for later", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 1, 0);
    const amount = setup.amounts.get("u-p0")!;
    const call = http(w);
    expect(await call("/api/admin/resume", { reason: "just in case" })).toEqual({
      status: 409,
      body: { error: "Money is not halted: there is nothing to resume." },
    });
    expect((await call("/api/admin/audit")).body.entries.map((e: Json) => e.action)).not.toContain("resume_money");
    // The claim that waited is checked against the cap like any other.
    expect(await w.run("payouts", capOf(amount - 1n))).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(statuses(w)).toEqual(["queued"]);
    expect(w.local.node.getBalance(new PublicKey(setup.wallets.get("u-p0")!))).toBe(0n);
  }, 60_000);

  test("it releases the rows /admin listed, by id: other rows are a 409 that changes nothing; the total is audited", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 0);
    const total = sum(setup.amounts.values());
    const cap = capOf(total - 1n);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    const call = http(w);
    const listed = await call("/api/admin/incidents");
    expect(listed.body.halted.kind).toBe("outflow-hour");
    const ids = listed.body.waiting.payouts.map((p: Json) => p.id);
    expect(ids.length).toBe(2);
    expect(listed.body.waiting).toMatchObject({ withdrawals: [], burnOrders: [], totalLamports: String(total) });

    // The operator saw one payout, two wait: refused, nothing resolved, nothing released.
    const stale = await call("/api/admin/resume", { reason: "looked", payoutIds: [ids[0]] });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toStartWith("What is waiting to leave is not what was listed");
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect((await call("/api/admin/resume", { reason: "looked", payoutIds: ["1"] })).status).toBe(400);

    const ok = await call("/api/admin/resume", {
      reason: "two known claims",
      payoutIds: [...ids].reverse(),
      withdrawalIds: [],
      burnOrderIds: [],
    });
    expect(ok).toEqual({
      status: 200,
      body: {
        ok: true,
        action: "resume_money",
        resolved: 1,
        released: { payoutIds: ids, withdrawalIds: [], burnOrderIds: [], totalLamports: String(total) },
      },
    });
    const audit = (await call("/api/admin/audit")).body.entries[0];
    expect(audit).toMatchObject({ action: "resume_money", reason: "two known claims" });
    expect(audit.subject).toContain(`${total} lamports`);
    expect(await w.run("payouts", cap)).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "confirmed"]);
  }, 60_000);

  test("while the reconciliation holds money a resume is refused with the reason, and resolves nothing", async () => {
    w = await moneyWorld();
    const call = http(w);
    holdForReconciliation(w.db, "restore", Date.now());
    expect(await call("/api/admin/resume", { reason: "in a hurry" })).toEqual({
      status: 409,
      body: {
        error:
          "Money is held while the books are reconciled with the chain; only the reconciliation lets it go, not a resume.",
      },
    });
    expect(moneyHalt(w.db)?.kind).toBe("reconciling");
    expect(listIncidents(w.db, 10).every((i) => i.resolvedAtMs === null)).toBe(true);
  }, 60_000);
});

describe("the review amount", () => {
  test("applies to an account's payouts over a rolling day: the claim that takes it past waits as held", async () => {
    w = await moneyWorld();
    w.signIn("u-rev", "reviewed");
    const t = w.launch([{ handle: "reviewed", bps: 10_000 }], 0);
    w.trade(t.mint, 30_000_000_000n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(accountFigures(w.db, "user", "u-rev").balanceLamports).toBeGreaterThanOrEqual(57_000_000n);
    const review = 20_000_000n;
    const each = 19_000_000n;
    const wallet = PublicKey.unique().toBase58();
    const startMs = Date.now();
    expect(claim(w, "u-rev", wallet, each, startMs, review).status).toBe("queued");
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed"]);
    // 45 s later, a second claim under the review amount on its own: together they are above it.
    const second = claim(w, "u-rev", wallet, each, startMs + 45_000, review);
    expect(second.status).toBe("held");
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "held"]);
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(each);
    // Refused, it counts no more; a day after the first, the window has moved past it.
    expect(immediate(w.db, () => refuseHeldPayout(w!.db, second.payoutId, "asked twice", Date.now()))).toBe(true);
    expect(claim(w, "u-rev", wallet, each, startMs + DAY_MS + 1, review).status).toBe("queued");
    verifyLedger(w.db);
  }, 60_000);
});
