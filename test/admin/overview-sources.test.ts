/**
 * /admin reads each figure from the source the API answers from (issue 63, item 9): claims refused
 * by a halt read "paused" there too, the job-health verdict is `/api/cron/health`'s, and a halt's
 * detail speaks SOL like the page's forms.
 */
import { afterEach, expect, test } from "bun:test";
import { moneyGate, raiseIncident } from "../../src/custody";
import { JOB_NAMES } from "../../src/jobs/names";
import type { TestService } from "../helpers/service";
import { devLogin, freshWallet, launchToken, postJson, serviceWith, sweep } from "../accounts/support";

const ADMIN = "admin-secret-for-the-overview-sources-0123456789";
const bearer = { headers: { authorization: `Bearer ${ADMIN}` } };
let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

test("claims refused by a halt: the overview says paused, with the refusal's words, as the claim and /api/me do", async () => {
  ({ svc } = serviceWith({ ADMIN_SECRET: ADMIN }));
  const { db } = svc.ctx;
  const token = launchToken(db, [{ handle: "alice", bps: 10_000 }]);
  sweep(db, token.tokenId, 2_000_000_000n);
  const cookie = await devLogin(svc, "alice");
  const before = await svc.json("/api/admin/overview", bearer);
  expect(before.body.settings).toMatchObject({ claimsPaused: false, claimsPausedReason: null });

  raiseIncident(db, { kind: "outflow-day", detail: "a day's outflow above its cap", atMs: Date.now() });
  const claim = await postJson(svc, "/api/claim", { wallet: freshWallet() }, { cookie, ip: "192.0.2.9" });
  expect(claim.status).toBe(503);
  const me = await svc.json("/api/me", { headers: { cookie } });
  expect(me.body.claimsPaused).toBe(true);

  const overview = await svc.json("/api/admin/overview", bearer);
  expect(overview.status).toBe(200);
  expect(overview.body.settings).toMatchObject({
    claimsPaused: true,
    // Not the operator's pause: the claims control still offers to pause, and Custody resumes.
    claimsPausedByOperator: false,
    claimsPausedReason: claim.body.error,
  });
});

test("the overview's job health is /api/cron/health's: a job this deployment does not use is not called stale", async () => {
  // No market data source (the embedded defaults): the market job has nothing to do here.
  let clock: number | null = null;
  ({ svc } = serviceWith({ ADMIN_SECRET: ADMIN }, { now: () => clock ?? Date.now() }));
  expect(svc.ctx.config.marketApiUrl).toBeNull();
  for (const job of JOB_NAMES.filter((j) => j !== "market")) {
    svc.ctx.scheduler.register(job, async () => {});
    expect(await svc.ctx.scheduler.runNow(job)).toMatchObject({ ran: true, ok: true });
  }
  // One instant for both reads, so "seconds since ok" cannot differ between them.
  clock = Date.now();

  const health = await svc.json("/api/cron/health");
  expect(health.body.ok).toBe(true);
  const overview = await svc.json("/api/admin/overview", bearer);
  expect(overview.status).toBe(200);
  expect(overview.body.health.ok).toBe(health.body.ok);
  expect(overview.body.health.jobs).toEqual(health.body.jobs);
  expect(overview.body.health.jobs.find((j: { job: string }) => j.job === "market")).toMatchObject({
    configured: false,
    stale: true,
  });
});

test("a halt's detail on /admin speaks SOL, as the page's forms take amounts", async () => {
  ({ svc } = serviceWith({ ADMIN_SECRET: ADMIN }));
  const tripped = moneyGate(
    svc.ctx.db,
    { outflowMaxLamportsPerHour: 1_500_000_000n, outflowMaxLamportsPerDay: 20_000_000_000_000n },
    Date.now(),
    2_000_000_001n,
  );
  expect(tripped?.kind).toBe("outflow-hour");
  const incidents = await svc.json("/api/admin/incidents", bearer);
  expect(incidents.status).toBe(200);
  const detail: string = incidents.body.halted.detail;
  expect(detail).toBe(
    "sending 2.000000001 SOL would take the outflow of the rolling hour to 2.000000001 SOL, above its cap of 1.5 SOL",
  );
  expect(detail).not.toContain("lamports");
  const overview = await svc.json("/api/admin/overview", bearer);
  expect(overview.body.health.halted.detail).toBe(detail);
});
