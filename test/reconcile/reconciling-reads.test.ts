/**
 * While the books are reconciled with the chain after a restore (issue 63, item 11), an account's
 * public figures say "reconciling" (null, with `reconciling: true`) instead of numbers that are on
 * their way from the backup's to the chain's; when it is done, the figures return, and they are
 * the ones from before the restore. The reconciliation is held mid-run: every treasury transaction
 * it reads first lets the test read the account over HTTP, as a user's page would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChainServices } from "../../src/chain/services";
import { testConfig } from "../../src/config";
import { meOf } from "../../src/accounts/me";
import { accountFigures } from "../../src/ledger/figures";
import { holdForReconciliation, reconcileWithChain } from "../../src/reconcile";
import { buildService } from "../../src/service";
import { moneyWorld, type World } from "../jobs/world";
import { configOf, jobContext, restoreScenario, settle } from "./support";

let w: World;

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
}, 60_000);

afterAll(async () => {
  await w?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: test-side JSON, checked by the assertions that read it
type Json = any;

/** The world's chain, with `beforeRead` awaited before every transaction the reconciliation reads. */
function heldChain(beforeRead: () => Promise<void>): ChainServices {
  const reader = new Proxy(w.chain.reader, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "getTransaction" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        await beforeRead();
        return value.apply(target, args);
      };
    },
  });
  return { ...w.chain, reader };
}

describe("account reads during a reconciliation after a restore", () => {
  test("say reconciling, with no figure, until it is done; then the figures before the restore return", async () => {
    const scenario = await restoreScenario(w);
    const live = accountFigures(w.db, "user", "u-ana");
    const dir = mkdtempSync(join(tmpdir(), "reconciling-reads-"));
    copyFileSync(scenario.backupPath, join(dir, "service.db"));
    const config = testConfig({ DATA_DIR: dir });
    const service = buildService(config, { chain: w.chain });
    const db = service.ctx.db;
    const read = async (path: string) => {
      const res = await service.app.handle(new Request(`http://localhost${path}`));
      return { status: res.status, body: (await res.json()) as Json };
    };
    try {
      holdForReconciliation(db, "restore", Date.now());
      const seen: { record: Json; me: Json; ledgerBalance: bigint }[] = [];
      const probe = async () => {
        seen.push({
          record: (await read("/api/idp/ana")).body,
          me: meOf(db, config, "u-ana"),
          ledgerBalance: accountFigures(db, "user", "u-ana").balanceLamports,
        });
      };
      await probe();
      const chain = heldChain(probe);
      const cfg = configOf(w, scenario.platformWallet);
      const now = Date.now;
      const deps = {
        db,
        chain,
        now,
        payouts: { db, chain, config: cfg, now },
        sweeps: {
          db,
          chain,
          sweepMinLamports: cfg.sweepMinLamports,
          platformBuybackBps: cfg.platformBuybackBps,
          now,
          reserves: cfg.custody,
        },
        burns: { db, chain, now, slippageBps: cfg.burnSlippageBps, outflowCaps: cfg.custody },
      };
      let status = "";
      for (let i = 0; i < 400 && status !== "done"; i++) {
        status = (await reconcileWithChain(deps, jobContext())).status;
        expect(["applying", "done", "waiting"]).toContain(status);
      }
      expect(status).toBe("done");

      // The books moved while it ran (the numbers a user would have seen), yet no read showed one.
      expect(seen.length).toBeGreaterThan(2);
      expect(new Set(seen.map((s) => s.ledgerBalance)).size).toBeGreaterThan(1);
      for (const { record, me } of seen) {
        expect(record).toMatchObject({
          handle: "ana",
          reconciling: true,
          creditedLamports: null,
          paidLamports: null,
          burnedLamports: null,
          balanceLamports: null,
        });
        expect(record.tokens.length).toBeGreaterThan(0);
        for (const t of record.tokens) expect(t.creditedLamports).toBeNull();
        expect(me).toMatchObject({ signedIn: true, reconciling: true, balanceLamports: null, creditedLamports: null });
      }

      // Done: the figures are back, as strings, and no `reconciling` field.
      const after = (await read("/api/idp/ana")).body;
      expect(after.reconciling).toBeUndefined();
      expect(after.balanceLamports).toBe(accountFigures(db, "user", "u-ana").balanceLamports.toString());
      expect(after.tokens.every((t: Json) => /^\d+$/.test(t.creditedLamports))).toBe(true);
      expect(meOf(db, config, "u-ana")).not.toHaveProperty("reconciling");
      // And once the restored books have sent what they hold, they are the figures from before the restore.
      await settle(w, db, scenario.platformWallet);
      const settled = (await read("/api/idp/ana")).body;
      expect(settled).toMatchObject({
        creditedLamports: live.creditedLamports.toString(),
        paidLamports: live.paidLamports.toString(),
        burnedLamports: live.burnedLamports.toString(),
        balanceLamports: live.balanceLamports.toString(),
      });
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
