/**
 * The detail's on-request vault refresh, batched: what a page of many stale tokens costs the node,
 * and that batching never stores a reading older than what the books already hold.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { VaultReading } from "../../src/chain/ports";
import { VAULT_REFRESH_BATCH_MAX, VaultRefresher } from "../../src/tokens/vault-refresh";
import { fakeChain, launch, setVault, T0 } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const NOW = T0 + 3_600_000;
/** One turn of the event loop: whatever the refresher would start on its own has started. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const fresh = (mint: string): VaultReading => ({
  mint,
  curveLamports: 100n,
  poolLamports: 20n,
  creatorLamports: 3n,
  bonded: false,
});

/** A chain whose vault reads wait until released, recording the mints of each call. */
function heldChain() {
  const calls: string[][] = [];
  const releases: (() => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const chain = fakeChain({
    readVaults: (mints) => {
      calls.push(mints);
      for (const w of waiters.filter((w) => calls.length >= w.count)) w.resolve();
      return new Promise((resolve) => releases.push(() => resolve(mints.map(fresh))));
    },
  });
  const releaseAll = () => {
    for (const release of releases.splice(0)) release();
  };
  /** Resolves once the node has been called `count` times. */
  const called = (count: number) =>
    calls.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return { chain, calls, releaseAll, called };
}

function staleTokens(count: number): string[] {
  return Array.from({ length: count }, () => {
    const t = launch(svc.ctx.db, { launchedAtMs: T0 });
    setVault(svc.ctx.db, t.mint, 5n, T0);
    return t.mint;
  });
}

describe("vault refresh of token details", () => {
  test("details of many stale tokens asked at once share node calls, and each shows its fresh reading", async () => {
    const chain = fakeChain({ readVaults: async (mints) => mints.map(fresh) });
    svc = testService({}, { now: () => NOW, chain });
    const mints = staleTokens(VAULT_REFRESH_BATCH_MAX + 5);
    const answers = await Promise.all(mints.map((m) => svc.json(`/api/tokens/${m}`)));
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body).toMatchObject({ vaultLamports: "123", vaultCheckedAt: new Date(NOW).toISOString() });
    }
    // One call per batch of 25, not one per detail.
    expect(chain.calls.readVaults).toBe(2);
  });

  test("one mint asked by many at once is read once", async () => {
    const chain = fakeChain({ readVaults: async (mints) => mints.map(fresh) });
    svc = testService({}, { now: () => NOW, chain });
    const [mint] = staleTokens(1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => svc.json(`/api/tokens/${mint}`)));
    expect(answers.map((a) => a.body.vaultLamports)).toEqual(Array(10).fill("123"));
    expect(chain.calls.readVaults).toBe(1);
  });

  test("stale mints asked while the node is busy go in the next call, not one call each", async () => {
    const held = heldChain();
    svc = testService({}, { now: () => NOW, chain: held.chain });
    const mints = staleTokens(12);
    const refresher = new VaultRefresher(svc.ctx, { callsMax: 1 });
    const tokenOf = (mint: string) => {
      const row = svc.ctx.db.$client
        .query<{ id: number; creator: string }, [string]>("SELECT id, creator FROM tokens WHERE mint = ?")
        .get(mint)!;
      return { tokenId: row.id, mint, creator: row.creator, vaults: null, vaultCheckedAtMs: T0, lastSweptAtMs: null };
    };
    const first = refresher.refresh(tokenOf(mints[0]!));
    await held.called(1);
    expect(held.calls).toEqual([[mints[0]!]]);
    const rest = mints.slice(1).map((m) => refresher.refresh(tokenOf(m)));
    await nextTurn();
    expect(held.calls.length).toBe(1);
    held.releaseAll();
    expect(await first).toBe(true);
    await held.called(2);
    expect(held.calls.slice(1)).toEqual([mints.slice(1)]);
    held.releaseAll();
    expect(await Promise.all(rest)).toEqual(Array(11).fill(true));
  });

  test("the mints waiting are bounded: past the bound a detail keeps its stored reading without waiting", async () => {
    const held = heldChain();
    svc = testService({}, { now: () => NOW, chain: held.chain });
    const mints = staleTokens(4);
    const refresher = new VaultRefresher(svc.ctx, { callsMax: 1, waitingMax: 2 });
    const token = (mint: string) => ({
      tokenId: 0,
      mint,
      creator: mint,
      vaults: null,
      vaultCheckedAtMs: T0,
      lastSweptAtMs: null,
    });
    void refresher.refresh(token(mints[0]!));
    await held.called(1);
    void refresher.refresh(token(mints[1]!));
    void refresher.refresh(token(mints[2]!));
    // The node is held until the end: an answer at all is an answer that did not wait for it.
    expect(await refresher.refresh(token(mints[3]!))).toBe(false);
    held.releaseAll();
  });

  test("a reading taken while a sweep landed is not stored for that token; the others of its batch are", async () => {
    let swept: string | null = null;
    const chain = fakeChain({
      readVaults: async (mints) => {
        // A sweep of the first token lands while the node answers: its stored figure is newer.
        swept = mints[0]!;
        svc.ctx.db.$client
          .query("UPDATE tokens SET vault_lamports = 0, last_swept_at_ms = ? WHERE mint = ?")
          .run(NOW - 1, swept);
        return mints.map(fresh);
      },
    });
    svc = testService({}, { now: () => NOW, chain });
    const mints = staleTokens(3);
    const answers = await Promise.all(mints.map((m) => svc.json(`/api/tokens/${m}`)));
    expect(chain.calls.readVaults).toBe(1);
    const byMint = new Map(answers.map((a) => [a.body.mint, a.body]));
    expect(byMint.get(swept!)).toMatchObject({ vaultLamports: "0", vaultCheckedAt: new Date(T0).toISOString() });
    for (const mint of mints.filter((m) => m !== swept)) expect(byMint.get(mint)?.vaultLamports).toBe("123");
  });

  test("a reading that finds the figure unchanged stores its time and the bonded flag, unless a sweep landed meanwhile", async () => {
    let swept: string | null = null;
    const chain = fakeChain({
      readVaults: async (mints) => {
        // A sweep of the first token lands while the node answers, leaving the same figure behind.
        swept = mints[0]!;
        svc.ctx.db.$client.query("UPDATE tokens SET last_swept_at_ms = ? WHERE mint = ?").run(NOW - 1, swept);
        return mints.map((m) => ({ ...fresh(m), bonded: true }));
      },
    });
    svc = testService({}, { now: () => NOW, chain });
    const mints = Array.from({ length: 3 }, () => {
      const t = launch(svc.ctx.db, { launchedAtMs: T0 });
      setVault(svc.ctx.db, t.mint, 123n, T0);
      return t.mint;
    });
    const answers = await Promise.all(mints.map((m) => svc.json(`/api/tokens/${m}`)));
    expect(chain.calls.readVaults).toBe(1);
    const byMint = new Map(answers.map((a) => [a.body.mint, a.body]));
    expect(byMint.get(swept!)).toMatchObject({
      vaultLamports: "123",
      vaultCheckedAt: new Date(T0).toISOString(),
      bonded: false,
    });
    for (const mint of mints.filter((m) => m !== swept)) {
      expect(byMint.get(mint)).toMatchObject({
        vaultLamports: "123",
        vaultCheckedAt: new Date(NOW).toISOString(),
        bonded: true,
      });
    }
  });

  test("a failing node leaves every token of the batch on its stored reading, and later details try again", async () => {
    let failing = true;
    const chain = fakeChain({
      readVaults: async (mints) => {
        if (failing) throw new Error("connect ECONNREFUSED http://rpc.example/?key=1");
        return mints.map(fresh);
      },
    });
    svc = testService({}, { now: () => NOW, chain });
    const mints = staleTokens(3);
    const first = await Promise.all(mints.map((m) => svc.json(`/api/tokens/${m}`)));
    expect(first.map((a) => [a.status, a.body.vaultLamports])).toEqual(Array(3).fill([200, "5"]));
    failing = false;
    const second = await Promise.all(mints.map((m) => svc.json(`/api/tokens/${m}`)));
    expect(second.map((a) => a.body.vaultLamports)).toEqual(Array(3).fill("123"));
    expect(chain.calls.readVaults).toBe(2);
  });
});
