import { afterEach, describe, expect, test } from "bun:test";
import { recordSignIn } from "../../src/identity/identity";
import { registerJobs } from "../../src/register-jobs";
import { testService, type TestService } from "../helpers/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

describe("housekeeping", () => {
  test("the launches job deletes sessions past their expiry and keeps live ones", async () => {
    svc = testService();
    registerJobs(svc.ctx);
    const db = svc.ctx.db;
    recordSignIn(
      db,
      { idpUserId: "u1", displayHandle: "alice", name: "Alice", avatarUrl: "", followers: 0 },
      Date.now(),
    );
    const insert = db.$client.query(
      "INSERT INTO sessions (id, idp_user_id, created_at_ms, expires_at_ms) VALUES (?, 'u1', ?, ?)",
    );
    insert.run("expired-session-hash", Date.now() - 8 * 86_400_000, Date.now() - 86_400_000);
    insert.run("live-session-hash", Date.now(), Date.now() + 86_400_000);
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: true });
    const ids = (db.$client.query("SELECT id FROM sessions ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    expect(ids).toEqual(["live-session-hash"]);
  });
});
