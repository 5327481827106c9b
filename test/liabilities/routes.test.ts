/**
 * The proof-of-liabilities routes over a hand-built history (no chain): every account owed
 * something (a balance, a payout in flight, a burn order waiting, an unpinned handle) gets exactly
 * one leaf whose proof verifies with the independent verifier; the tree's total is `owedLamports`;
 * public answers carry no nonce; the session route is private and answers 401 and 404 as SPEC says;
 * a tree that does not add up is an incident, not a snapshot.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createSession, sessionCookieName } from "../../src/auth/sessions";
import { accountFigures, ledgerTotals } from "../../src/ledger/figures";
import { SNAPSHOT_EVERY_MS, SNAPSHOT_KEEP_MS, pruneSnapshots, takeSnapshot } from "../../src/liabilities/snapshots";
import { verifyLiabilityProof } from "../../scripts/verify-liabilities";
import { documentChecker } from "../helpers/openapi";
import { testService, type TestService } from "../helpers/service";
import { launch, payout, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

function cookieFor(s: TestService, idpUserId: string): string {
  const { token } = createSession(s.ctx.db, idpUserId, Date.now());
  return `${sessionCookieName(s.ctx.config)}=${token}`;
}

/** alice: balance + a queued payout; bob: burn routing (orders waiting); carol: an unpinned handle; dave: nothing. */
function history(s: TestService) {
  const db = s.ctx.db;
  signIn(db, "u-alice", "alice", T0);
  signIn(db, "u-bob", "bob", T0, { routing: "burn" });
  signIn(db, "u-dave", "dave", T0);
  const t = launch(db, {
    recipients: [
      { handle: "alice", bps: 5000 },
      { handle: "bob", bps: 3000 },
      { handle: "carol", bps: 2000 },
    ],
    platformBps: 1000,
  });
  sweep(db, t.tokenId, 1_000_000_007n, T0 + 1000);
  payout(db, "u-alice", 100_000_000n, T0 + 2000, "queued");
  return t;
}

describe("proof of liabilities routes", () => {
  test("every account owed something has one leaf that verifies; the total is owedLamports; nothing secret is public", async () => {
    svc = testService();
    const db = svc.ctx.db;
    expect((await svc.json("/api/proof/liabilities")).status).toBe(404);
    history(svc);
    const owed = ledgerTotals(db).owedLamports;
    const result = takeSnapshot(db, T0 + 3000);
    expect(result).toMatchObject({ taken: true, totalLamports: owed, leafCount: 3 });
    // Not remembered here: the route rebuilds the tree from the stored leaves and must find the same root.

    const pub = await svc.json("/api/proof/liabilities");
    expect(pub.status).toBe(200);
    expect(pub.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=15, stale-while-revalidate=45");
    expect(pub.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Object.keys(pub.body).sort()).toEqual(["anchorSignature", "at", "leaves", "root", "totalLamports"]);
    expect(pub.body).toMatchObject({
      at: new Date(T0 + 3000).toISOString(),
      totalLamports: owed.toString(),
      leaves: 3,
      anchorSignature: null,
    });

    const alice = await svc.json("/api/me/proof", { headers: { cookie: cookieFor(svc, "u-alice") } });
    expect(alice.status).toBe(200);
    expect(alice.headers.get("cache-control")).toBe("private, no-store");
    expect(alice.headers.get("x-ratelimit-limit")).toBe("60");
    // Her balance plus the payout still in flight: both are what she is owed.
    expect(alice.body.leaf.lamports).toBe(
      (accountFigures(db, "user", "u-alice").balanceLamports + 100_000_000n).toString(),
    );
    expect(alice.body.root).toBe(pub.body.root);
    expect(alice.body.totalLamports).toBe(pub.body.totalLamports);
    expect(verifyLiabilityProof(alice.body)).toMatchObject({ ok: true });

    const bob = await svc.json("/api/me/proof", { headers: { cookie: cookieFor(svc, "u-bob") } });
    expect(bob.status).toBe(200);
    expect(accountFigures(db, "user", "u-bob").balanceLamports).toBe(0n);
    expect(BigInt(bob.body.leaf.lamports)).toBe(accountFigures(db, "user", "u-bob").burnedLamports);
    expect(verifyLiabilityProof(bob.body)).toMatchObject({ ok: true });

    // Nobody's nonce is in the public answer.
    const publicText = JSON.stringify(pub.body);
    for (const proof of [alice.body, bob.body]) expect(publicText).not.toContain(proof.leaf.nonce);

    // Dave is owed nothing: no leaf.
    const dave = await svc.json("/api/me/proof", { headers: { cookie: cookieFor(svc, "u-dave") } });
    expect(dave.status).toBe(404);
    expect(dave.headers.get("cache-control")).toBe("private, no-store");
    expect(Object.keys(dave.body)).toEqual(["error"]);

    // Signed out: 401, private.
    const out = await svc.json("/api/me/proof");
    expect(out.status).toBe(401);
    expect(out.headers.get("cache-control")).toBe("private, no-store");

    // Carol signs in later: her handle's leaf in the earlier snapshot is hers.
    signIn(db, "u-carol", "carol", T0 + 4000);
    const carol = await svc.json(`/api/me/proof?at=${new Date(T0 + 3000).toISOString()}`, {
      headers: { cookie: cookieFor(svc, "u-carol") },
    });
    expect(carol.status).toBe(200);
    expect(verifyLiabilityProof(carol.body)).toMatchObject({ ok: true });
    const carolCredit = accountFigures(db, "user", "u-carol").balanceLamports;
    expect(carolCredit).toBeGreaterThan(0n);
    expect(BigInt(carol.body.leaf.lamports)).toBe(carolCredit);
  });

  test("?at= answers the latest snapshot at or before it; nonces are fresh per snapshot; bad times are 400", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const t = history(svc);
    expect(takeSnapshot(db, T0 + 3000).taken).toBe(true);
    // Nothing moved: no new snapshot until an hour has passed.
    expect(takeSnapshot(db, T0 + 4000)).toEqual({ taken: false, reason: "unchanged" });
    sweep(db, t.tokenId, 500_000_000n, T0 + 5000);
    expect(takeSnapshot(db, T0 + 6000).taken).toBe(true);
    // An hour later a snapshot is taken even though nothing moved.
    expect(takeSnapshot(db, T0 + 5999 + SNAPSHOT_EVERY_MS)).toEqual({ taken: false, reason: "unchanged" });
    expect(takeSnapshot(db, T0 + 6000 + SNAPSHOT_EVERY_MS).taken).toBe(true);

    const cookie = cookieFor(svc, "u-alice");
    const first = await svc.json(`/api/proof/liabilities?at=${encodeURIComponent(new Date(T0 + 5999).toISOString())}`);
    expect(first.body.at).toBe(new Date(T0 + 3000).toISOString());
    const second = await svc.json(`/api/proof/liabilities?at=${new Date(T0 + 6000).toISOString()}`);
    expect(second.body.at).toBe(new Date(T0 + 6000).toISOString());
    expect(BigInt(second.body.totalLamports)).toBeGreaterThan(BigInt(first.body.totalLamports));
    const latest = await svc.json("/api/proof/liabilities");
    expect(latest.body.at).toBe(new Date(T0 + 6000 + SNAPSHOT_EVERY_MS).toISOString());
    expect(latest.body.totalLamports).toBe(ledgerTotals(db).owedLamports.toString());

    const p1 = await svc.json(`/api/me/proof?at=${new Date(T0 + 3000).toISOString()}`, { headers: { cookie } });
    const p2 = await svc.json(`/api/me/proof?at=${new Date(T0 + 6000).toISOString()}`, { headers: { cookie } });
    expect(verifyLiabilityProof(p1.body)).toMatchObject({ ok: true });
    expect(verifyLiabilityProof(p2.body)).toMatchObject({ ok: true });
    expect(p1.body.root).toBe(first.body.root);
    expect(p1.body.leaf.nonce).not.toBe(p2.body.leaf.nonce);
    // A proof from one snapshot does not verify against another's root.
    expect(verifyLiabilityProof({ ...p1.body, root: p2.body.root, totalLamports: p2.body.totalLamports }).ok).toBe(
      false,
    );

    expect((await svc.json(`/api/proof/liabilities?at=${new Date(T0).toISOString()}`)).status).toBe(404);
    for (const bad of ["yesterday", "2026-13-45T00:00:00Z", "1700000000"]) {
      const r = await svc.json(`/api/proof/liabilities?at=${encodeURIComponent(bad)}`);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
    }

    // Kept a year: older snapshots and their leaves go.
    expect(pruneSnapshots(db, T0 + 3000 + SNAPSHOT_KEEP_MS + 1)).toBe(1);
    expect((await svc.json(`/api/proof/liabilities?at=${new Date(T0 + 5999).toISOString()}`)).status).toBe(404);
    const leaves = db.$client
      .query(
        "SELECT COUNT(*) AS n FROM liability_leaves l LEFT JOIN liability_snapshots s ON s.id = l.snapshot_id WHERE s.id IS NULL",
      )
      .get() as { n: bigint };
    expect(leaves.n).toBe(0n);
  });

  test("a tree that does not add up to owedLamports is an incident, never a snapshot", async () => {
    svc = testService();
    const db = svc.ctx.db;
    history(svc);
    // A burn order no ledger entry backs: the tree would promise more than the books owe.
    db.$client
      .query(
        "INSERT INTO burn_orders (source, idp_user_id, mint, lamports, status, created_at_ms) VALUES ('recipient', 'u-dave', 'x', 5, 'pending', ?)",
      )
      .run(T0);
    const result = takeSnapshot(db, T0 + 3000);
    expect(result).toMatchObject({
      taken: false,
      reason: "incident",
      owedLamports: ledgerTotals(db).owedLamports,
      treeLamports: ledgerTotals(db).owedLamports + 5n,
    });
    expect((await svc.json("/api/proof/liabilities")).status).toBe(404);
    const incidents = db.$client.query("SELECT owed_lamports, tree_lamports FROM liability_incidents").all() as {
      owed_lamports: bigint;
      tree_lamports: bigint;
    }[];
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.tree_lamports - incidents[0]!.owed_lamports).toBe(5n);
  });

  test("the OpenAPI document describes /api/proof/liabilities (its answers conform) and not the session route", async () => {
    svc = testService();
    const doc = (await svc.json("/api/openapi.json")).body;
    const op = doc.paths["/api/proof/liabilities"]?.get;
    expect(op).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "429"]));
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(["at"]);
    expect(doc.paths["/api/me/proof"]).toBeUndefined();
    const conforms = (status: number, body: unknown) =>
      documentChecker(doc).assertBody("/api/proof/liabilities", "GET", status, body);
    const none = await svc.json("/api/proof/liabilities");
    conforms(404, none.body);
    const bad = await svc.json("/api/proof/liabilities?at=soon");
    expect(bad.status).toBe(400);
    conforms(400, bad.body);
    history(svc);
    takeSnapshot(svc.ctx.db, T0 + 3000);
    const ok = await svc.json("/api/proof/liabilities");
    expect(ok.status).toBe(200);
    conforms(200, ok.body);
    // An anchored snapshot shows its signature, and still conforms.
    svc.ctx.db.$client
      .query("UPDATE liability_snapshots SET anchor_signature = ?, anchored_at_ms = ?")
      .run("5".repeat(88), T0 + 4000);
    const anchored = await svc.json("/api/proof/liabilities");
    expect(anchored.body.anchorSignature).toBe("5".repeat(88));
    conforms(200, anchored.body);
  });
});
