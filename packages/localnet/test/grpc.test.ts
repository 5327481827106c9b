import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Connection, Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import Client, {
  CommitmentLevel,
  type SubscribeRequest,
  type SubscribeUpdate,
  txErrDecode,
} from "@triton-one/yellowstone-grpc";
import bs58 from "bs58";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { LocalChain } from "../src/index";
import { startTestChain, signedTx, waitFor } from "./helpers";

let chain: LocalChain;
let connection: Connection;
const streams: { destroy(): void }[] = [];

beforeEach(async () => {
  ({ chain, connection } = await startTestChain());
});
afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy();
  await chain.stop();
});

function request(partial: Partial<SubscribeRequest>): SubscribeRequest {
  return {
    accounts: {},
    slots: {},
    transactions: {},
    transactionsStatus: {},
    blocks: {},
    blocksMeta: {},
    entry: {},
    accountsDataSlice: [],
    ...partial,
  };
}

async function subscribe(
  req: SubscribeRequest,
): Promise<{ updates: SubscribeUpdate[]; errors: Error[]; stream: Awaited<ReturnType<Client["subscribe"]>> }> {
  const client = new Client(chain.grpcUrl, undefined, undefined);
  await client.connect();
  const stream = await client.subscribe();
  streams.push(stream);
  const updates: SubscribeUpdate[] = [];
  const errors: Error[] = [];
  stream.on("data", (u: SubscribeUpdate) => updates.push(u));
  stream.on("error", (e: Error) => errors.push(e));
  // A ping travels with the filters: its pong proves the server has applied them.
  const pingId = Math.floor(Math.random() * 1_000_000);
  await new Promise<void>((resolve, reject) =>
    stream.write({ ...req, ping: { id: pingId } }, (e: Error | null | undefined) => (e ? reject(e) : resolve())),
  );
  await waitFor("subscription applied", () => updates.some((u) => u.pong?.id === pingId));
  return { updates, errors, stream };
}

async function transfer(to: PublicKey, lamports: bigint): Promise<string> {
  const { tx, signature } = await signedTx(
    connection,
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports })],
    chain.treasury,
  );
  await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  return signature;
}

describe("Yellowstone gRPC through @triton-one/yellowstone-grpc", () => {
  test("unary methods answer", async () => {
    const client = new Client(chain.grpcUrl, undefined, undefined);
    await client.connect();
    expect((await client.getSlot()).slot).toBe(chain.node.getSlot().toString());
    const bh = await client.getLatestBlockhash();
    expect(bh.blockhash).toBe(chain.node.getLatestBlockhash().blockhash);
    expect((await client.isBlockhashValid(bh.blockhash)).valid).toBe(true);
    expect((await client.ping(3)).count).toBe(3);
    expect((await client.getVersion()).version).toContain("local-chain");
    expect((await client.getBlockHeight()).blockHeight).toBe(chain.node.getBlockHeight().toString());
  }, 60_000);

  test("account and transaction updates for a subscribed account arrive within one slot", async () => {
    const watched = Keypair.generate().publicKey;
    const confirmed = await subscribe(
      request({
        accounts: { mine: { account: [watched.toBase58()], owner: [], filters: [] } },
        transactions: {
          mine: {
            accountInclude: [watched.toBase58()],
            accountExclude: [],
            accountRequired: [],
            vote: false,
            failed: false,
          },
        },
        commitment: CommitmentLevel.CONFIRMED,
      }),
    );
    const processed = await subscribe(
      request({
        accounts: { byOwner: { account: [], owner: [SystemProgram.programId.toBase58()], filters: [] } },
        commitment: CommitmentLevel.PROCESSED,
      }),
    );

    const signature = await transfer(watched, 1_777_000n);
    const landedSlot = chain.node.getSlot();
    // processed subscribers see it at once
    await waitFor("processed account update", () =>
      processed.updates.find((u) => u.account && bs58.encode(u.account.account!.pubkey) === watched.toBase58()),
    );
    expect(confirmed.updates.filter((u) => u.account || u.transaction)).toHaveLength(0);

    // confirmed subscribers see it as soon as its slot closes: one slot later
    chain.node.advanceSlots(1);
    const acc = await waitFor("confirmed account update", () => confirmed.updates.find((u) => u.account));
    expect(acc.filters).toEqual(["mine"]);
    expect(acc.account!.account!.lamports).toBe("1777000");
    expect(acc.account!.slot).toBe(landedSlot.toString());
    expect(bs58.encode(acc.account!.account!.txnSignature!)).toBe(signature);
    const tx = await waitFor("confirmed transaction update", () => confirmed.updates.find((u) => u.transaction));
    expect(bs58.encode(tx.transaction!.transaction!.signature)).toBe(signature);
    expect(tx.transaction!.slot).toBe(landedSlot.toString());
    const meta = tx.transaction!.transaction!.meta!;
    expect(meta.err).toBeUndefined();
    expect(meta.fee).toBe("5000");
    const keys = tx.transaction!.transaction!.transaction!.message!.accountKeys.map((k) => bs58.encode(k));
    expect(meta.postBalances[keys.indexOf(watched.toBase58())]).toBe("1777000");
  }, 60_000);

  test("transaction filters honour required accounts and the failed flag", async () => {
    const a = Keypair.generate().publicKey;
    const sub = await subscribe(
      request({
        transactions: {
          onlyFailed: {
            accountInclude: [],
            accountExclude: [],
            accountRequired: [chain.treasury.publicKey.toBase58()],
            failed: true,
          },
          needsA: {
            accountInclude: [],
            accountExclude: [],
            accountRequired: [chain.treasury.publicKey.toBase58(), a.toBase58()],
          },
        },
        transactionsStatus: { status: { accountInclude: [a.toBase58()], accountExclude: [], accountRequired: [] } },
      }),
    );
    const ok = await transfer(a, 1_000_000n);
    chain.faults.failNextSends(1);
    const bad = await transfer(a, 2_000_000n);
    const other = await transfer(Keypair.generate().publicKey, 1_000_000n);
    await waitFor(
      "three transaction updates",
      () =>
        sub.updates.filter((u) => u.transaction).length >= 2 &&
        sub.updates.filter((u) => u.transactionStatus).length >= 2,
    );
    chain.node.advanceSlots(1);
    await new Promise((r) => setTimeout(r, 100));
    const seen = sub.updates
      .filter((u) => u.transaction)
      .map((u) => [bs58.encode(u.transaction!.transaction!.signature), u.filters.sort().join(",")]);
    expect(seen).toEqual([
      [ok, "needsA"],
      [bad, "needsA,onlyFailed"],
    ]);
    expect(seen.some(([s]) => s === other)).toBe(false);
    const failedStatus = sub.updates.find(
      (u) => u.transactionStatus && bs58.encode(u.transactionStatus.signature) === bad,
    )!;
    expect(txErrDecode.decode(failedStatus.transactionStatus!.err!.err)).toEqual({
      InstructionError: [0, { Custom: 1 }],
    } as never);
  }, 60_000);

  test("the stream resumes after being cut, replaying what it missed from fromSlot", async () => {
    const watched = Keypair.generate().publicKey;
    const req = request({
      accounts: { w: { account: [watched.toBase58()], owner: [], filters: [] } },
      commitment: CommitmentLevel.CONFIRMED,
    });
    const first = await subscribe(req);
    await transfer(watched, 1_000_000n);
    chain.node.advanceSlots(1);
    const u1 = await waitFor("first update", () => first.updates.find((u) => u.account));
    const lastSlot = BigInt(u1.account!.slot);

    expect(chain.faults.cutStreams()).toBe(1);
    await waitFor("stream error after cut", () => first.errors.length > 0 || first.stream.destroyed);

    // while nobody listens, the account changes
    await transfer(watched, 2_000_000n);
    chain.node.advanceSlots(1);

    const second = await subscribe({ ...req, fromSlot: (lastSlot + 1n).toString() });
    const u2 = await waitFor("missed update replayed", () => second.updates.find((u) => u.account));
    expect(u2.account!.account!.lamports).toBe("3000000");
    // and live updates keep flowing after the replay
    await transfer(watched, 4_000_000n);
    chain.node.advanceSlots(1);
    await waitFor("live update after resume", () =>
      second.updates.find((u) => u.account?.account?.lamports === "7000000"),
    );
  }, 60_000);

  test("the client's own reconnect layer resumes after a cut and recovers what it missed", async () => {
    const watched = Keypair.generate().publicKey;
    const client = new Client(chain.grpcUrl, undefined, undefined, {
      backoff: { initialIntervalMs: 50, multiplier: 2, maxRetries: 20 },
      slotRetention: 250,
    });
    await client.connect();
    const stream = await client.subscribe();
    streams.push(stream);
    const lamports: string[] = [];
    const pongs: number[] = [];
    stream.on("data", (u: SubscribeUpdate) => {
      if (u.account) lamports.push(u.account.account!.lamports);
      if (u.pong) pongs.push(u.pong.id);
    });
    stream.on("error", () => {});
    await new Promise<void>((resolve) =>
      stream.write(
        request({
          accounts: { w: { account: [watched.toBase58()], owner: [], filters: [] } },
          commitment: CommitmentLevel.CONFIRMED,
          ping: { id: 1 },
        }),
        () => resolve(),
      ),
    );
    await waitFor("subscription applied", () => pongs.includes(1));

    await transfer(watched, 1_000_000n);
    chain.node.advanceSlots(1);
    await waitFor("first update", () => lamports.includes("1000000"));
    chain.faults.cutStreams();
    await transfer(watched, 2_000_000n); // lands while the stream is down
    chain.node.advanceSlots(1);
    await waitFor("missed update recovered", () => lamports.includes("3000000"));
    await transfer(watched, 4_000_000n);
    chain.node.advanceSlots(1);
    await waitFor("live update after reconnect", () => lamports.includes("7000000"));
    expect(lamports).toEqual(["1000000", "3000000", "7000000"]);
  }, 60_000);

  test("data filters and slices select token accounts of one mint; finalized waits 32 slots", async () => {
    const token = chain.launch.createToken({ name: "T", symbol: "T", uri: "u", creator: Keypair.generate().publicKey });
    expect(token.err).toBeNull();
    chain.node.advanceSlots(1);
    const sub = await subscribe(
      request({
        accounts: {
          holders: {
            account: [],
            owner: ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],
            filters: [
              { datasize: "165" },
              { memcmp: { offset: "0", base58: token.mint } },
              { tokenAccountState: true },
            ],
          },
        },
        accountsDataSlice: [{ offset: "64", length: "8" }],
        commitment: CommitmentLevel.CONFIRMED,
      }),
    );
    const buyer = Keypair.generate();
    const buyerAta = getAssociatedTokenAddressSync(new PublicKey(token.mint), buyer.publicKey);
    const fin = await subscribe(
      request({
        accounts: { ata: { account: [buyerAta.toBase58()], owner: [], filters: [] } },
        commitment: CommitmentLevel.FINALIZED,
      }),
    );
    chain.node.fund(buyer.publicKey, 10_000_000_000n);
    const bought = chain.launch.buy({ mint: token.mint, buyer, solInLamports: 1_000_000_000n });
    expect(bought.err).toBeNull();
    chain.node.advanceSlots(1);
    await waitFor("two token account updates", () => sub.updates.filter((u) => u.account).length >= 2);
    const amounts = sub.updates
      .filter((u) => u.account)
      .map((u) => Buffer.from(u.account!.account!.data).readBigUInt64LE(0));
    expect(amounts).toContain(bought.tokens); // the buyer's account, sliced to its amount field
    expect(sub.updates.filter((u) => u.account).every((u) => u.account!.account!.data.length === 8)).toBe(true);

    chain.node.advanceSlots(31);
    await new Promise((r) => setTimeout(r, 100));
    expect(fin.updates.filter((u) => u.account)).toHaveLength(0);
    chain.node.advanceSlots(2);
    await waitFor("finalized updates", () => fin.updates.some((u) => u.account));
  }, 60_000);

  test("slot updates and pings", async () => {
    const sub = await subscribe(
      request({ slots: { s: { filterByCommitment: true } }, commitment: CommitmentLevel.CONFIRMED }),
    );
    await new Promise<void>((resolve) => sub.stream.write(request({ ping: { id: 7 } }), () => resolve()));
    await waitFor("pong", () => sub.updates.find((u) => u.pong?.id === 7));
    const start = chain.node.getSlot();
    chain.node.advanceSlots(2);
    await waitFor("two confirmed slots", () => sub.updates.filter((u) => u.slot).length >= 2);
    expect(sub.updates.filter((u) => u.slot).map((u) => u.slot!.slot)).toEqual([
      start.toString(),
      (start + 1n).toString(),
    ]);
  }, 60_000);
  test("1,000 accounts changing in one slot reach a confirmed subscriber without the stream being cut", async () => {
    const vaults = Array.from({ length: 1_000 }, () => Keypair.generate().publicKey);
    const sub = await subscribe(
      request({
        accounts: { vaults: { account: vaults.map((v) => v.toBase58()), owner: [], filters: [] } },
        slots: { head: { filterByCommitment: false } },
        commitment: CommitmentLevel.CONFIRMED,
      }),
    );
    for (let round = 1; round <= 3; round++) {
      for (let i = 0; i < vaults.length; i += 20) {
        const ixs = vaults.slice(i, i + 20).map((v) =>
          SystemProgram.transfer({
            fromPubkey: chain.node.faucet.publicKey,
            toPubkey: v,
            lamports: 1_000_000n + BigInt(round),
          }),
        );
        const r = chain.node.submitInstructions(ixs, chain.node.faucet);
        expect(r.err).toBeNull();
      }
      chain.node.advanceSlots(1);
      await waitFor(
        `round ${round} delivered`,
        () => sub.updates.filter((u) => u.account).length >= round * vaults.length || sub.errors.length > 0,
        20_000,
      );
    }
    expect(sub.errors).toEqual([]);
    const accounts = sub.updates.filter((u) => u.account);
    expect(accounts).toHaveLength(3 * vaults.length);
    expect(new Set(accounts.map((u) => bs58.encode(u.account!.account!.pubkey))).size).toBe(vaults.length);
    expect(accounts.at(-1)!.account!.account!.lamports).toBe((3_000_006).toString());
  }, 60_000);
});
