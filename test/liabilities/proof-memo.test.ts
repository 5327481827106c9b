/**
 * Issue 43, finding 10: `/api/me/proof?at=` rebuilt a whole Merkle tree from its leaves on every
 * request for a snapshot past the few trees kept. A snapshot never changes, so an account's proof
 * in it is remembered: asking again reads no leaf and builds no tree. The answer stays private
 * (`private, no-store`): the memo is the service's own, never a shared cache's.
 */
import { afterEach, expect, test } from "bun:test";
import { createSession, sessionCookieName } from "../../src/auth/sessions";
import { SNAPSHOT_EVERY_MS, takeSnapshot } from "../../src/liabilities/snapshots";
import { verifyLiabilityProof } from "../../scripts/verify-liabilities";
import { testService, type TestService } from "../helpers/service";
import { launch, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

test("an account's proof in a past snapshot is built once, however often and in whatever order it is asked", async () => {
  svc = testService();
  const db = svc.ctx.db;
  signIn(db, "u-erin", "erin", T0);
  signIn(db, "u-finn", "finn", T0);
  const t = launch(db, {
    recipients: [
      { handle: "erin", bps: 6000 },
      { handle: "finn", bps: 4000 },
    ],
  });
  // Six snapshots (more than the trees kept in memory), each after new credits.
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    sweep(db, t.tokenId, 10_000_000n + BigInt(i), T0 + i * SNAPSHOT_EVERY_MS + 1);
    const at = T0 + i * SNAPSHOT_EVERY_MS + 2;
    expect(takeSnapshot(db, at)).toMatchObject({ taken: true });
    times.push(at);
  }
  const { token } = createSession(db, "u-erin", Date.now());
  const cookie = `${sessionCookieName(svc.ctx.config)}=${token}`;
  const ask = (at: number) =>
    svc!.json(`/api/me/proof?at=${encodeURIComponent(new Date(at).toISOString())}`, { headers: { cookie } });

  const first = new Map<number, unknown>();
  for (const at of times) {
    const r = await ask(at);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(verifyLiabilityProof(r.body)).toMatchObject({ ok: true });
    first.set(at, r.body);
  }
  // Were a tree rebuilt or a leaf read again, these answers would change or fail: none is left to read.
  db.$client.query("DELETE FROM liability_leaves").run();
  for (const at of [...times].reverse()) {
    const again = await ask(at);
    expect({ at, status: again.status }).toEqual({ at, status: 200 });
    expect(again.body).toEqual(first.get(at));
  }
  // Another account's proof is its own: nothing remembered for erin answers for finn.
  const { token: finnToken } = createSession(db, "u-finn", Date.now());
  const finn = await svc.json(`/api/me/proof?at=${encodeURIComponent(new Date(times[0]!).toISOString())}`, {
    headers: { cookie: `${sessionCookieName(svc.ctx.config)}=${finnToken}` },
  });
  expect(finn.status).not.toBe(200);
});
