/**
 * Handle pinning, renames and handles that changed hands (DESIGN §3), through real sign-ins
 * against the fake provider, and the figures of /api/idp/:handle and /api/me that follow.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { accountRecord } from "../../src/accounts/record";
import { accountFigures } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { fakeUser, startFakeIdp, type FakeIdp } from "../fakes/idp";
import type { TestService } from "../helpers/service";
import { freshWallet, launchToken, ledgerSnapshot, postJson, serviceWith, signInThroughIdp, sweep } from "./support";

let idp: FakeIdp;
let svc: TestService;
const SOL = 1_000_000_000n;

beforeAll(() => {
  idp = startFakeIdp();
});
afterAll(() => idp.stop());
afterEach(async () => {
  await svc?.cleanup();
  idp.users.clear();
  idp.failLookups.clear();
});

function fresh() {
  svc = serviceWith(idp.env).svc;
  return svc.ctx.db;
}

const me = async (cookie: string | null) => (await svc.json("/api/me", { headers: { cookie: cookie ?? "" } })).body;
const figuresOf = (record: ReturnType<typeof accountRecord>) => {
  const { creditedLamports, paidLamports, burnedLamports, balanceLamports, payouts, tokens } = record!;
  return { creditedLamports, paidLamports, burnedLamports, balanceLamports, payouts, tokens };
};

describe("renames", () => {
  test("credits follow the user id; both handles show the same totals; /api/me lists both", async () => {
    const db = fresh();
    idp.users.set("2001", fakeUser("2001", "Alice"));
    const a = launchToken(db, [{ handle: "alice", bps: 10_000 }]);
    sweep(db, a.tokenId, SOL);
    // before sign-in the credit accrues to the handle, and the record shows it with no payouts
    expect(accountRecord(db, "alice")!.creditedLamports).toBe("1000000000");
    expect(accountRecord(db, "alice")!.claimed).toBe(false);

    const first = await signInThroughIdp(svc, idp, "2001");
    expect(first.callback.status).toBe(302);
    expect(accountFigures(db, "user", "2001").balanceLamports).toBe(SOL);
    expect(
      (await postJson(svc, "/api/claim", { wallet: freshWallet(), lamports: "200000000" }, { cookie: first.session }))
        .status,
    ).toBe(200);

    // renamed on the provider; a token names the new handle before she signs in with it
    idp.rename("2001", "Alice_Renamed");
    const b = launchToken(db, [{ handle: "alice_renamed", bps: 10_000 }]);
    sweep(db, b.tokenId, 500_000_000n);
    const second = await signInThroughIdp(svc, idp, "2001");
    expect(second.callback.status).toBe(302);
    // a credit to the old handle after the rename still reaches the same id
    sweep(db, a.tokenId, 300_000_000n);

    const user = accountFigures(db, "user", "2001");
    expect(user).toEqual({
      creditedLamports: 1_800_000_000n,
      paidLamports: 200_000_000n,
      burnedLamports: 0n,
      balanceLamports: 1_600_000_000n,
    });
    const old = accountRecord(db, "alice")!;
    const renamed = accountRecord(db, "alice_renamed")!;
    expect(figuresOf(old)).toEqual(figuresOf(renamed));
    expect(old.balanceLamports).toBe("1600000000");
    expect(old.tokens.map((t) => t.mint).sort()).toEqual([a.mint, b.mint].sort());
    expect(old.payouts).toHaveLength(1);
    expect(renamed.displayHandle).toBe("Alice_Renamed");

    // the public route answers the same under both handles, any casing
    const pub = await svc.json("/api/idp/ALICE");
    const pubRenamed = await svc.json("/api/idp/@alice_renamed");
    expect(pub.status).toBe(200);
    expect(figuresOf(pub.body)).toEqual(figuresOf(pubRenamed.body));
    expect(pub.body.balanceLamports).toBe("1600000000");
    expect(pub.body.claimed).toBe(true);

    const body = await me(second.session);
    expect(body.handle).toBe("alice_renamed");
    expect(body.displayHandle).toBe("Alice_Renamed");
    expect(body.handles).toEqual(["alice", "alice_renamed"]);
    expect(body.creditedLamports).toBe("1800000000");
    expect(body.balanceLamports).toBe("1600000000");
    expect(body.tokens).toEqual(old.tokens);
    expect(body.payouts).toEqual(old.payouts);
    verifyLedger(db);
  });
});

describe("a handle that changed hands", () => {
  async function carolPaidThenRenamed() {
    const db = fresh();
    idp.users.set("3001", fakeUser("3001", "carol"));
    const c = launchToken(db, [{ handle: "carol", bps: 10_000 }]);
    sweep(db, c.tokenId, SOL);
    const v = await signInThroughIdp(svc, idp, "3001");
    expect(
      (await postJson(svc, "/api/claim", { wallet: freshWallet(), lamports: "200000000" }, { cookie: v.session }))
        .status,
    ).toBe(200);
    return { db, c, v };
  }

  test("the old holder renamed: the handle is re-pinned to the new holder for future credits; past credits stay", async () => {
    const { db, c, v } = await carolPaidThenRenamed();
    idp.rename("3001", "carol_was");
    idp.users.set("3002", fakeUser("3002", "Carol"));
    const u = await signInThroughIdp(svc, idp, "3002");
    expect(u.callback.status).toBe(302);
    expect(idp.lookups).toContain("3001");

    // what V was credited stays V's, payout included
    expect(accountFigures(db, "user", "3001")).toEqual({
      creditedLamports: SOL,
      paidLamports: 200_000_000n,
      burnedLamports: 0n,
      balanceLamports: 800_000_000n,
    });
    expect(accountFigures(db, "user", "3002").creditedLamports).toBe(0n);
    sweep(db, c.tokenId, 400_000_000n);
    expect(accountFigures(db, "user", "3002").balanceLamports).toBe(400_000_000n);
    expect(accountFigures(db, "user", "3001").balanceLamports).toBe(800_000_000n);

    // the public record of the handle now shows the new holder's money only
    expect((await svc.json("/api/idp/carol")).body.creditedLamports).toBe("400000000");
    const record = accountRecord(db, "carol")!;
    expect(record.creditedLamports).toBe("400000000");
    expect(record.payouts).toEqual([]);
    expect((await me(u.session)).handles).toEqual(["carol"]);
    const old = await me(v.session);
    expect(old.handles).toEqual([]);
    expect(old.balanceLamports).toBe("800000000");
    expect(old.payouts).toHaveLength(1);
    verifyLedger(db);
  });

  test("the old holder's account is gone: the handle is re-pinned", async () => {
    const { db } = await carolPaidThenRenamed();
    idp.remove("3001");
    idp.users.set("3002", fakeUser("3002", "carol"));
    const u = await signInThroughIdp(svc, idp, "3002");
    expect(u.callback.status).toBe(302);
    expect(accountRecord(db, "carol")!.creditedLamports).toBe("0");
    expect(accountFigures(db, "user", "3001").balanceLamports).toBe(800_000_000n);
  });

  test("409 when the old holder still holds it: no session, ledger and pins untouched", async () => {
    const { db } = await carolPaidThenRenamed();
    idp.users.set("3002", fakeUser("3002", "carol"));
    const before = ledgerSnapshot(db);
    const sessions = db.$client.query("SELECT COUNT(*) AS n FROM sessions").get();
    const u = await signInThroughIdp(svc, idp, "3002");
    expect(u.callback.status).toBe(409);
    expect(Object.keys(await u.callback.json())).toEqual(["error"]);
    expect(u.session).toBeNull();
    expect(ledgerSnapshot(db)).toEqual(before);
    expect(db.$client.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual(sessions);
    expect(db.$client.query("SELECT 1 FROM identities WHERE idp_user_id = '3002'").get()).toBeNull();
  });

  test("503 when the provider cannot be asked and the handle has been paid before: nothing changes", async () => {
    const { db } = await carolPaidThenRenamed();
    idp.rename("3001", "carol_was");
    idp.failLookups.add("3001");
    idp.users.set("3002", fakeUser("3002", "carol"));
    const before = ledgerSnapshot(db);
    const u = await signInThroughIdp(svc, idp, "3002");
    expect(u.callback.status).toBe(503);
    expect(u.session).toBeNull();
    expect(ledgerSnapshot(db)).toEqual(before);
    expect(accountRecord(db, "carol")!.balanceLamports).toBe("800000000");
    expect(db.$client.query("SELECT 1 FROM identities WHERE idp_user_id = '3002'").get()).toBeNull();
    // once the provider answers again, the sign-in goes through
    idp.failLookups.clear();
    expect((await signInThroughIdp(svc, idp, "3002")).callback.status).toBe(302);
  });

  test("a handle never paid is re-pinned even when the provider cannot be asked", async () => {
    const db = fresh();
    idp.users.set("5001", fakeUser("5001", "erin"));
    launchToken(db, [{ handle: "erin", bps: 10_000 }]);
    await signInThroughIdp(svc, idp, "5001");
    idp.rename("5001", "erin_old");
    idp.failLookups.add("5001");
    idp.users.set("5002", fakeUser("5002", "erin"));
    const u = await signInThroughIdp(svc, idp, "5002");
    expect(u.callback.status).toBe(302);
    expect(db.$client.query("SELECT idp_user_id AS id FROM handles WHERE handle = 'erin'").get()).toEqual({
      id: "5002",
    });
  });
});
