/**
 * The audit's fixes to the money jobs, each against the embedded local chain:
 *  (a) a sweep's credit is checked against what the chain itself moved; a mismatch stops the token;
 *  (b) a mint that keeps failing is set aside (admin list) instead of failing its batch every run;
 *  (c) the burns job isolates each mint;
 *  (d) the proof of reserves does not show a shortfall while a bought token waits for its burn;
 *  (e) a pause of claims set while the payouts job runs stops the batches not yet sent.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js";
import type { ChainServices } from "../../src/chain/services";
import type { ConfirmedTransaction, PreparedTransaction, SweepEffect } from "../../src/chain/ports";
import { orderBurn } from "../../src/ledger/commands";
import { immediate } from "../../db/transaction";
import { ledgerTotals } from "../../src/ledger/figures";
import { setClaimsPaused } from "../../src/settings/service";
import { buildService } from "../../src/service";
import { testConfig } from "../../src/config";
import { checkPaidExactlyOnce, setupBurns, setupPayouts, setupSweep } from "./scenarios";
import { moneyWorld, type World } from "./world";
import type { Json } from "../helpers/service";

let w: World | null = null;
let closeService: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeService?.();
  closeService = null;
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };
const ADMIN = "admin-secret-for-audit-tests-0123456789";
const count = (world: World, sql: string, ...args: (string | number)[]) =>
  Number((world.db.$client.query(sql).get(...args) as { n: bigint }).n);

/** The HTTP service on the world's own database and chain. */
function http(world: World) {
  const config = testConfig({ DATA_DIR: world.dir, ADMIN_SECRET: ADMIN, TRUST_PROXY: "x-forwarded-for" });
  const service = buildService(config, { chain: world.chain });
  closeService = () => service.close();
  return async (path: string, admin = false) => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.7" });
    if (admin) headers.set("authorization", `Bearer ${ADMIN}`);
    const res = await service.app.handle(new Request(`http://localhost${path}`, { headers }));
    return { status: res.status, body: (await res.json()) as Json };
  };
}

function patch(world: World, fn: (chain: ChainServices) => void): void {
  fn(world.chain as ChainServices);
}

describe("(a) sweep credit checked against the chain", () => {
  test("a decoder that reports more than the transfer moved: that token is stopped, never credited; the others are", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 2);
    const [good, bad] = setup.tokens;
    const decode = w.launchProgram.decodeSweep.bind(w.launchProgram);
    w.launchProgram.decodeSweep = (tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[] =>
      decode(tx, creators).map((e) =>
        e.creator === bad!.creator ? { ...e, movedToTreasuryLamports: e.movedToTreasuryLamports + 1_000n } : e,
      );
    expect(await w.run("sweep", {}, { settleTimeoutMs: 5_000 })).toMatchObject(ok);
    const status = (tokenId: number) =>
      (w!.db.$client.query("SELECT status FROM sweeps WHERE token_id = ?").all(tokenId) as { status: string }[]).map(
        (r) => r.status,
      );
    expect(status(good!.tokenId)).toEqual(["confirmed"]);
    expect(status(bad!.tokenId)).toEqual(["sent"]);
    // Nothing credited that did not reach the treasury: only the good token's collected fees.
    expect(ledgerTotals(w.db).sweptLamports).toBe(setup.before.get(good!.mint)!);
    const call = http(w);
    const list = await call("/api/admin/set-aside", true);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({
      mint: bad!.mint,
      symbol: expect.any(String),
      job: "sweep",
      retryAt: null,
      failures: 1,
    });
    expect(list.body.items[0].reason).toContain("credit mismatch");
    const health = await call("/api/cron/health");
    expect(health.body.ok).toBe(false);
    expect(health.body.setAside).toEqual({ tokens: 1, stopped: 1 });
    // Stopped means stopped: later runs neither credit it nor sweep it again.
    expect(await w.run("sweep", {}, { settleTimeoutMs: 1_000 })).toMatchObject(ok);
    expect(status(bad!.tokenId)).toEqual(["sent"]);
    expect(ledgerTotals(w.db).sweptLamports).toBe(setup.before.get(good!.mint)!);
  }, 60_000);

  test("a decoder that reports less than the treasury received: the batch is stopped, never credited short", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 2);
    const decode = w.launchProgram.decodeSweep.bind(w.launchProgram);
    w.launchProgram.decodeSweep = (tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[] =>
      decode(tx, creators).map((e, i) =>
        i === 0 ? { ...e, movedToTreasuryLamports: e.movedToTreasuryLamports - 1_000n } : e,
      );
    expect(await w.run("sweep", {}, { settleTimeoutMs: 5_000 })).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'confirmed'")).toBe(0);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    expect(count(w, "SELECT COUNT(*) AS n FROM set_aside WHERE retry_at_ms IS NULL")).toBe(setup.tokens.length);
  }, 60_000);
});

describe("(b) a mint that keeps failing is set aside", () => {
  test("a token whose sweep always fails on chain stops taking its batch down, and is set aside after 3 failures", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 3);
    const bad = setup.tokens[1]!;
    const build = w.launchProgram.sweepInstructions.bind(w.launchProgram);
    // Its transfer asks for far more than the creator address holds: the collect "always fails".
    w.launchProgram.sweepInstructions = (items, treasury): TransactionInstruction[] =>
      build(items, treasury).map((ix) =>
        ix.programId.equals(SystemProgram.programId) && ix.keys[0]!.pubkey.toBase58() === bad.creator
          ? SystemProgram.transfer({ fromPubkey: new PublicKey(bad.creator), toPubkey: treasury, lamports: 10n ** 15n })
          : ix,
      );
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(await w.run("sweep")).toMatchObject(ok);
    // Second run: the failing token went alone, the others were swept.
    for (const t of setup.tokens) {
      if (t === bad) continue;
      expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE token_id = ? AND status = 'confirmed'", t.tokenId)).toBe(
        1,
      );
    }
    expect(await w.run("sweep")).toMatchObject(ok);
    const call = http(w);
    const list = (await call("/api/admin/set-aside", true)).body.items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ mint: bad.mint, job: "sweep", failures: 3 });
    expect(list[0].reason).toContain("failed on chain");
    expect(Date.parse(list[0].retryAt)).toBeGreaterThan(Date.now() + 5 * 60_000);
    // Set aside: not tried again before its retry time.
    const attempts = count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE token_id = ?", bad.tokenId);
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE token_id = ?", bad.tokenId)).toBe(attempts);
    // Without the admin bearer the list does not exist.
    expect((await call("/api/admin/set-aside")).status).toBe(404);
    w.checkRelations();
  }, 90_000);
});

describe("(c) burns isolate each mint", () => {
  test("a mint whose buy cannot be built does not stop the others; it is set aside after repeated failures", async () => {
    w = await moneyWorld();
    const setup = await setupBurns(w);
    const env = { PLATFORM_BUYBACK_BPS: "5000" };
    // A fourth mint whose buy cannot be built (as when its pool is missing). Since buys spend exactly
    // the order, even a 1-lamport order buys something on the local curve, so the failure is injected.
    const tiny = w.launch([{ handle: "holder", bps: 10_000 }], 1000);
    const program = w.chain.launchProgram;
    const buildBurnBuy = program.buildBurnBuy.bind(program);
    program.buildBurnBuy = (token, ...rest) =>
      token.mint === tiny.mint ? Promise.reject(new Error("pool missing")) : buildBurnBuy(token, ...rest);
    const sweepId = Number((w.db.$client.query("SELECT MIN(id) AS id FROM sweeps").get() as { id: bigint }).id);
    immediate(w.db, () => {
      const row = w!.db.$client
        .query(
          "INSERT INTO burn_orders (source, idp_user_id, mint, lamports, sweep_id, status, created_at_ms) VALUES ('recipient', 'u-hold', ?, 1, ?, 'pending', ?) RETURNING id",
        )
        .get(tiny.mint, sweepId, Date.now()) as { id: bigint };
      orderBurn(w!.db, {
        orderId: Number(row.id),
        source: "recipient",
        idpUserId: "u-hold",
        mint: tiny.mint,
        lamports: 1n,
        atMs: Date.now(),
      });
    });
    expect(await w.run("burns", env)).toMatchObject(ok);
    for (const mint of setup.mints) {
      expect(count(w, "SELECT COUNT(*) AS n FROM burn_buys WHERE mint = ? AND status = 'confirmed'", mint)).toBe(1);
    }
    expect(await w.run("burns", env)).toMatchObject(ok);
    expect(await w.run("burns", env)).toMatchObject(ok);
    const list = (await http(w)("/api/admin/set-aside", true)).body.items;
    expect(list).toEqual([expect.objectContaining({ mint: tiny.mint, job: "burns", failures: 3 })]);
    expect(list[0].reason).toContain("pool missing");
    w.checkRelations();
  }, 90_000);
});

describe("(d) proof of reserves while a burn is pending", () => {
  test("what left the treasury for a bought-but-not-burned token is not owed: no false shortfall", async () => {
    w = await moneyWorld();
    await setupBurns(w);
    const orders = w.db.$client.query("SELECT source, SUM(lamports) AS s FROM burn_orders GROUP BY source").all() as {
      source: string;
      s: bigint;
    }[];
    const recipientOrdered = BigInt(orders.find((o) => o.source === "recipient")!.s);
    const platformOrdered = BigInt(orders.find((o) => o.source === "platform")?.s ?? 0n);
    // Leave the treasury holding what is owed plus the buys' rent, fees, the platform part and
    // half of the recipients' part: short only if the spent recipients' part still counts as owed.
    const owed = ledgerTotals(w.db).owedLamports;
    const margin = 3n * 2_039_280n + 200_000n + platformOrdered + recipientOrdered / 2n;
    const drain = w.treasuryLamports() - owed - margin;
    const r = w.local.node.submitInstructions(
      [
        SystemProgram.transfer({
          fromPubkey: w.treasury.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: drain,
        }),
      ],
      w.treasury,
    );
    expect(r.err).toBeNull();
    // Burns never land: the buys do.
    const sender = w.chain.sender;
    patch(w, (chain) => {
      (chain as { sender: ChainServices["sender"] }).sender = {
        ...sender,
        send: async (p: PreparedTransaction) => {
          if (w!.db.$client.query("SELECT 1 FROM burn_buys WHERE burn_signature = ?").get(p.signature)) return;
          return sender.send(p);
        },
      };
    });
    expect(await w.run("burns", { PLATFORM_BUYBACK_BPS: "5000" }, { settleTimeoutMs: 3_000 })).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_buys WHERE status IN ('bought', 'burning')")).toBe(3);
    const proof = await http(w)("/api/proof");
    expect(proof.status).toBe(200);
    expect(BigInt(proof.body.owedLamports)).toBe(ledgerTotals(w.db).owedLamports - recipientOrdered);
    expect(proof.body.solvent).toBe(true);
    expect(BigInt(proof.body.treasuryLamports)).toBe(w.treasuryLamports());
  }, 90_000);
});

describe("(e) a pause set while the payouts job runs", () => {
  test("stops the batches not yet sent; they are paid once after resuming", async () => {
    w = await moneyWorld();
    // 14 claims: two transactions (12 + 2).
    const setup = await setupPayouts(w, 14, 0);
    const sender = w.chain.sender;
    patch(w, (chain) => {
      (chain as { sender: ChainServices["sender"] }).sender = {
        ...sender,
        send: async (p: PreparedTransaction) => {
          await sender.send(p);
          setClaimsPaused(w!.db, true);
        },
      };
    });
    expect(await w.run("payouts")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts WHERE status = 'queued'")).toBe(2);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts WHERE status = 'confirmed'")).toBe(12);
    setClaimsPaused(w.db, false);
    (w.chain as { sender: ChainServices["sender"] }).sender = sender;
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 60_000);
});
