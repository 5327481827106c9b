/**
 * `POST /api/admin/set-aside/:mint/clear`: the way back for a token stopped on a sweep credit
 * mismatch (audit fix (a)). Re-checked against the chain before anything is cleared; audited;
 * clearing credits nothing by itself, the next sweep run credits the stopped sweep through its own
 * cross-check, exactly what its transfer moved.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { ConfirmedTransaction, SweepEffect } from "../../src/chain/ports";
import { testConfig } from "../../src/config";
import { ledgerTotals } from "../../src/ledger/figures";
import { buildService } from "../../src/service";
import { setupSweep } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
let closeService: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeService?.();
  closeService = null;
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };
const ADMIN = "admin-secret-for-clear-tests-0123456789";

/** The fields of the answers this test reads. */
interface Answer {
  error?: string;
  ok?: boolean;
  items?: { mint: string }[];
  entries?: { action: string; subject: string | null; reason: string | null; actor: string }[];
  setAside?: { tokens: number; stopped: number };
  [field: string]: unknown;
}

/** The HTTP service on the world's own database and chain. */
function http(world: World) {
  const config = testConfig({ DATA_DIR: world.dir, ADMIN_SECRET: ADMIN, TRUST_PROXY: "x-forwarded-for" });
  const service = buildService(config, { chain: world.chain });
  closeService = () => service.close();
  return async (path: string, init: { admin?: boolean; body?: unknown } = {}) => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.7" });
    if (init.admin) headers.set("authorization", `Bearer ${ADMIN}`);
    const post = init.body !== undefined || path.endsWith("/clear");
    if (post) headers.set("content-type", "application/json");
    const res = await service.app.handle(
      new Request(`http://localhost${path}`, {
        method: post ? "POST" : "GET",
        headers,
        ...(post ? { body: JSON.stringify(init.body ?? {}) } : {}),
      }),
    );
    return { status: res.status, body: (await res.json()) as Answer };
  };
}

const sweepStatuses = (world: World, tokenId: number) =>
  world.db.$client
    .query<{ status: string }, [number]>("SELECT status FROM sweeps WHERE token_id = ? ORDER BY id")
    .all(tokenId)
    .map((r) => r.status);

describe("admin clear of a stopped token", () => {
  test("refused while the credit still disagrees; once it agrees, cleared, audited, and credited by the next run only", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 2);
    const [good, bad] = setup.tokens;
    const decode = w.launchProgram.decodeSweep.bind(w.launchProgram);
    // A decoder bug: it reports more than the transfer moved for one token.
    w.launchProgram.decodeSweep = (tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[] =>
      decode(tx, creators).map((e) =>
        e.creator === bad!.creator ? { ...e, movedToTreasuryLamports: e.movedToTreasuryLamports + 1_000n } : e,
      );
    expect(await w.run("sweep", {}, { settleTimeoutMs: 5_000 })).toMatchObject(ok);
    expect(sweepStatuses(w, bad!.tokenId)).toEqual(["sent"]);
    const sweptBefore = ledgerTotals(w.db).sweptLamports;
    expect(sweptBefore).toBe(setup.before.get(good!.mint)!);
    const call = http(w);
    const path = `/api/admin/set-aside/${bad!.mint}/clear`;

    // No admin credential: the route does not exist.
    expect((await call(path)).status).toBe(404);
    // Re-checked against the chain: the decoder still disagrees, nothing is cleared.
    const refused = await call(path, { admin: true, body: { reason: "looked at it" } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("still disagrees with the chain");
    expect((await call("/api/admin/set-aside", { admin: true })).body.items).toHaveLength(1);

    // The decoder is fixed (a new release): the re-check agrees, the stop is cleared.
    w.launchProgram.decodeSweep = decode;
    const cleared = await call(path, { admin: true, body: { reason: "decoder fixed in 1.2.3" } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ok: true, action: "clear_set_aside", mint: bad!.mint, cleared: ["sweep"] });
    expect((await call("/api/admin/set-aside", { admin: true })).body.items).toEqual([]);
    expect((await call("/api/cron/health")).body.setAside).toEqual({ tokens: 0, stopped: 0 });
    const entries = (await call("/api/admin/audit", { admin: true })).body.entries;
    expect(entries?.[0]).toMatchObject({
      action: "clear_set_aside",
      subject: bad!.mint,
      reason: "decoder fixed in 1.2.3",
      actor: "admin-api",
    });
    // Clearing credited nothing; the next sweep run credits exactly what the stopped sweep moved.
    expect(ledgerTotals(w.db).sweptLamports).toBe(sweptBefore);
    expect(sweepStatuses(w, bad!.tokenId)).toEqual(["sent"]);
    expect(await w.run("sweep", {}, { settleTimeoutMs: 5_000 })).toMatchObject(ok);
    expect(sweepStatuses(w, bad!.tokenId)[0]).toBe("confirmed");
    expect(ledgerTotals(w.db).sweptLamports).toBe(setup.before.get(good!.mint)! + setup.before.get(bad!.mint)!);
    w.checkRelations();
  }, 90_000);

  test("400 for a malformed mint, job or reason; 404 for a token that is not set aside", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 1);
    const call = http(w);
    const mint = setup.tokens[0]!.mint;
    expect((await call("/api/admin/set-aside/not-a-mint/clear", { admin: true })).status).toBe(400);
    const badJob = await call(`/api/admin/set-aside/${mint}/clear`, { admin: true, body: { job: "payouts" } });
    expect(badJob.status).toBe(400);
    const long = await call(`/api/admin/set-aside/${mint}/clear`, { admin: true, body: { reason: "x".repeat(501) } });
    expect(long.status).toBe(400);
    const none = await call(`/api/admin/set-aside/${mint}/clear`, { admin: true });
    expect(none).toEqual({ status: 404, body: { error: "That token is not set aside." } });
  }, 60_000);
});
