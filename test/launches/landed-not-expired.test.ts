/**
 * A create that landed is never lost to its intent's expiry or failure. The launches job never expires an intent whose create landed (found by the seeded simulation,
 * scripts/sim.ts): neither when the page closed before telling the service the signature, nor
 * when the status read reaches a node behind that has not seen the create. Expiring would leave
 * the token unrecorded on the ledger, its creator fees never swept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createRpcChain } from "../../src/chain/rpc";
import type { ChainServices } from "../../src/chain/services";
import { getIntent } from "../../src/launches/intents";
import { runLaunchesJob } from "../../src/launches/jobs";
import { settleIntent } from "../../src/launches/service";
import { testService, type TestService } from "../helpers/service";
import { localLaunchChain, png, prepare, signReturned, upload, type LocalLaunchChain } from "./support";

const SITE = "http://localhost";
let chain: LocalLaunchChain;

beforeAll(async () => {
  chain = await localLaunchChain();
});
afterAll(async () => {
  await chain.stop();
});

const job = () => ({ signal: new AbortController().signal, assertHeld: () => {} });

/** A service with its own chain client (no slot seen yet) and a clock the test moves. */
function service(clock: { now: number }): { svc: TestService; services: ChainServices } {
  const rpc = createRpcChain({ rpcUrl: chain.local.rpcUrl, timeoutMs: 5_000, retries: 0, allowNodeCosigners: true });
  const services = { ...chain.services, reader: rpc.reader, sender: rpc.sender };
  const svc = testService({ PUBLIC_URL: SITE, RATE_LIMIT: "0" }, { chain: services, now: () => clock.now });
  return { svc, services };
}

/** Prepared, uploaded, and the create sent straight to the chain by the wallet. */
async function launchSent(svc: TestService) {
  const wallet = Keypair.generate();
  chain.local.node.fund(wallet.publicKey, 20_000_000_000n);
  const mint = Keypair.generate();
  const image = await png();
  const intent = (await prepare(svc, wallet, mint, image)).body;
  const metadata = await upload(svc, intent, wallet, image);
  expect(metadata.status).toBe(200);
  const tx = signReturned(metadata.body.transactions[0], [wallet, mint]);
  const signature = chain.local.node.sendWire(tx.serialize(), { skipPreflight: false });
  return { intentId: intent.intent as string, signature };
}

describe("launches job: a landed create keeps its intent", () => {
  test("the page closed before confirm: past the window and grace, the intent waits for the indexer", async () => {
    const clock = { now: Date.now() };
    const { svc, services } = service(clock);
    try {
      const { intentId, signature } = await launchSent(svc);
      chain.local.node.advanceSlots(40);
      clock.now += 16 * 60_000;
      const counts = await runLaunchesJob(svc.ctx, job());
      expect(counts.expired).toBe(0);
      const intent = getIntent(svc.ctx.db, intentId)!;
      expect(intent.status).toBe("metadata");
      // The indexer's stream shows the create touching the intent's mint: it is recorded.
      expect((await settleIntent(svc.ctx, services, intent, signature)).kind).toBe("confirmed");
      expect(getIntent(svc.ctx.db, intentId)!.status).toBe("confirmed");
    } finally {
      await svc.cleanup();
    }
  });

  test("the status read reaches a node behind the create: not found, and still not expired", async () => {
    const clock = { now: Date.now() };
    const { svc } = service(clock);
    try {
      // The create is late (a slow leader); the page asks once, not found yet, and closes.
      chain.local.faults.apply({ kind: "delaySends", count: 1, slots: 20 });
      const { intentId, signature } = await launchSent(svc);
      const early = await svc.json("/api/launch/confirm", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent: intentId, signature }),
      });
      expect(early.status).toBe(202);
      chain.local.node.advanceSlots(80);
      expect(chain.local.node.getTransaction(signature)?.err).toBeNull();
      // Status reads now reach a node 70 slots behind: past the last slot the service saw, before the create.
      chain.local.faults.apply({ kind: "lag", slots: 70, share: 1, methods: ["getSignatureStatuses"] });
      clock.now += 16 * 60_000;
      const counts = await runLaunchesJob(svc.ctx, job());
      expect(counts.expired).toBe(0);
      expect(getIntent(svc.ctx.db, intentId)!.status).toBe("metadata");
      chain.local.faults.apply({ kind: "clear" });
      expect((await runLaunchesJob(svc.ctx, job())).confirmed).toBe(1);
    } finally {
      chain.local.faults.apply({ kind: "clear" });
      await svc.cleanup();
    }
  });

  test("a failed earlier attempt seen after a later create landed does not fail the intent", async () => {
    const clock = { now: Date.now() };
    const { svc, services } = service(clock);
    try {
      const wallet = Keypair.generate();
      chain.local.node.fund(wallet.publicKey, 20_000_000_000n);
      const mint = Keypair.generate();
      const image = await png();
      const intent = (await prepare(svc, wallet, mint, image)).body;
      const first = await upload(svc, intent, wallet, image);
      chain.local.faults.apply({ kind: "failSends", count: 1 });
      const failed = chain.local.node.sendWire(signReturned(first.body.transactions[0], [wallet, mint]).serialize(), {
        skipPreflight: true,
      });
      chain.local.node.advanceSlots(2);
      // The page asks for a new transaction (its first one failed) and that one creates the mint.
      const second = await upload(svc, intent, wallet, image);
      const created = chain.local.node.sendWire(signReturned(second.body.transactions[0], [wallet, mint]).serialize(), {
        skipPreflight: false,
      });
      chain.local.node.advanceSlots(40);
      expect(chain.local.node.getTransaction(failed)?.err).not.toBeNull();
      // The stream brings the failed attempt last (a replay, a slow indexer): the intent waits on.
      const waiting = getIntent(svc.ctx.db, intent.intent)!;
      expect((await settleIntent(svc.ctx, services, waiting, failed)).kind).toBe("rejected");
      expect(getIntent(svc.ctx.db, intent.intent)!.status).toBe("metadata");
      expect((await settleIntent(svc.ctx, services, waiting, created)).kind).toBe("confirmed");
    } finally {
      chain.local.faults.apply({ kind: "clear" });
      await svc.cleanup();
    }
  });
});
