/** The admin flag of tokens whose creator moved to a fee-sharing config, and the public field on the token record. */
import { afterEach, expect, test } from "bun:test";
import { immediate } from "../../db/transaction";
import { recordFeeSharing } from "../../src/tokens/fee-sharing";
import { FIXTURE_MINT, recordFixtureLaunch } from "../helpers/launch";
import { testService, type TestService } from "../helpers/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const MINT = FIXTURE_MINT;
const CONFIG = "11111111111111111111111111111114";
const auth = { authorization: "Bearer admin-secret-for-tests-0123456789abcdef" };

test("a token whose creator moved is flagged for admins and on its public record; unknown is null", async () => {
  svc = testService({ ADMIN_SECRET: "admin-secret-for-tests-0123456789abcdef" });
  const { tokenId } = recordFixtureLaunch(svc.ctx.db, {
    name: "Shared",
    symbol: "SHR",
  });
  expect((await svc.json(`/api/tokens/${MINT}`)).body.feeSharing).toBeNull();
  expect((await svc.json("/api/admin/fee-sharing", { headers: auth })).body).toEqual({ items: [] });
  const reading = {
    currentCreator: CONFIG,
    isSharingConfig: true,
    shareholders: [{ address: "x", shareBps: 10_000 }],
    serviceShareBps: 0,
    distributableLamports: 5n,
    poolDistributableLamports: 0n,
    shareLamports: 0n,
    blockedReason: "the coin's sharing config does not name the service's key as a shareholder",
  };
  immediate(svc.ctx.db, () => recordFeeSharing(svc.ctx.db, tokenId, reading, 1_700_000_000_000));
  const record = (await svc.json(`/api/tokens/${MINT}`)).body;
  expect(record.feeSharing).toEqual({
    status: "stopped",
    currentCreator: CONFIG,
    isSharingConfig: true,
    serviceShareBps: 0,
    reason: reading.blockedReason,
    since: new Date(1_700_000_000_000).toISOString(),
  });
  expect((await svc.json("/api/tokens")).body.tokens[0].feeSharing.status).toBe("stopped");
  const admin = await svc.json("/api/admin/fee-sharing", { headers: auth });
  expect(admin.body.items).toEqual([
    { mint: MINT, symbol: "SHR", checkedAt: new Date(1_700_000_000_000).toISOString(), ...record.feeSharing },
  ]);
  // without the secret the route does not exist
  expect((await svc.call("/api/admin/fee-sharing")).status).toBe(404);
  // the creator back on the derived key: the flag goes away
  immediate(svc.ctx.db, () => recordFeeSharing(svc.ctx.db, tokenId, null, 1_700_000_100_000));
  expect((await svc.json(`/api/tokens/${MINT}`)).body.feeSharing).toBeNull();
});
