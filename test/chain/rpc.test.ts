/**
 * rpc.ts against a JSON-RPC fake on loopback: batching, typed failures, bounded retries with
 * backoff and jitter, scrubbing, and the sender's save-first / expiry rules.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { isChainRejected, isChainUnavailable } from "../../src/chain/errors";
import { isAppError } from "../../src/lib/errors";
import { createRpcChain } from "../../src/chain/rpc";
import { type FakeRpc, context, startFakeRpc } from "./support/fake-rpc";

const SECRET = "SUPERSECRETKEY123";
let fake: FakeRpc;
afterEach(async () => {
  await fake?.stop();
});

function chain(extra: Partial<Parameters<typeof createRpcChain>[0]> = {}) {
  const sleeps: number[] = [];
  const c = createRpcChain({
    rpcUrl: fake.url,
    // Past any answer of the loopback fake on a loaded machine (a timeout there read as a retry,
    // one request more); the timeout's own test sets a short one and a fake that never answers.
    timeoutMs: 10_000,
    retries: 2,
    backoffBaseMs: 100,
    backoffMaxMs: 1_000,
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
    ...extra,
  });
  return { ...c, sleeps };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

/** The AppError code of a failure (null when it is not an AppError). */
function codeOf(error: Error): string | null {
  return isAppError(error) ? error.code : null;
}

function expectScrubbed(error: Error) {
  const text = `${error.name} ${error.message} ${error.stack ?? ""}`;
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(new URL(fake.url).host);
}

const account = (lamports: number) => ({
  lamports,
  owner: SystemProgram.programId.toBase58(),
  executable: false,
  rentEpoch: 0,
  space: 0,
  data: ["", "base64"],
});

describe("reader", () => {
  test("getAccounts batches 100 keys a call, deduplicates, and maps missing accounts to null", async () => {
    fake = startFakeRpc();
    const keys = Array.from({ length: 250 }, () => Keypair.generate().publicKey.toBase58());
    // even-numbered keys exist, with 1,000 + their number of lamports
    fake.handle("getMultipleAccounts", (params) =>
      context(
        (params[0] as string[]).map((k) => (keys.indexOf(k) % 2 === 0 ? account(1_000 + keys.indexOf(k)) : null)),
      ),
    );
    const { reader } = chain();
    const accounts = await reader.getAccounts([...keys, ...keys.slice(0, 10)]);
    const sizes = fake.requests.map((r) => (r.params[0] as string[]).length);
    expect(sizes).toEqual([100, 100, 50]);
    expect(accounts.size).toBe(250);
    expect(accounts.get(keys[0]!)!.lamports).toBe(1_000n);
    expect(accounts.get(keys[1]!)).toBeNull();
    const balances = await reader.getBalances([keys[1]!, keys[2]!]);
    expect([...balances.values()]).toEqual([0n, 1_002n]);
  });

  test("lamports above 2^53 are refused rather than rounded", async () => {
    fake = startFakeRpc();
    fake.handle("getMultipleAccounts", () => ({
      raw: `{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":[{"lamports":9007199254740993,"owner":"11111111111111111111111111111111","executable":false,"rentEpoch":0,"space":0,"data":["","base64"]}]}}`,
    }));
    const err = await failure(chain({ retries: 0 }).reader.getAccounts([Keypair.generate().publicKey.toBase58()]));
    expect(codeOf(err)).toBe("CHAIN_BAD_RESPONSE");
  });

  test("each account of an answer is checked field by field: data decoded, a malformed one refused", async () => {
    fake = startFakeRpc();
    const key = Keypair.generate().publicKey.toBase58();
    const owner = Keypair.generate().publicKey.toBase58();
    const bytes = Uint8Array.from([1, 2, 3, 250]);
    const answers: unknown[] = [
      { ...account(7), owner, executable: true, data: [Buffer.from(bytes).toString("base64"), "base64"] },
      { ...account(7), owner: "not-an-address" },
      { ...account(7), data: ["AAAA", "base58"] },
      { ...account(7), lamports: "7" },
      { ...account(7), lamports: -1 },
      [1, 2],
    ];
    let next = 0;
    fake.handle("getMultipleAccounts", () => context([answers[next++]]));
    const { reader } = chain({ retries: 0 });
    const good = (await reader.getAccounts([key])).get(key)!;
    expect({ ...good, data: [...good.data] }).toEqual({ lamports: 7n, owner, executable: true, data: [...bytes] });
    for (let i = 1; i < answers.length; i++)
      expect(codeOf(await failure(reader.getAccounts([key])))).toBe("CHAIN_BAD_RESPONSE");
    // The request as the node reads it: base64, at the reader's commitment.
    expect(fake.requests[0]!.params).toEqual([[key], { encoding: "base64", commitment: "confirmed" }]);
  });

  test("a node's JSON-RPC error on a read: transient codes retried, others refused without retry", async () => {
    fake = startFakeRpc();
    const key = Keypair.generate().publicKey.toBase58();
    fake.handle("getMultipleAccounts", (_p, attempt) =>
      attempt === 0 ? { error: { code: -32005, message: "Node is behind" } } : context([account(9)]),
    );
    expect((await chain().reader.getBalances([key])).get(key)).toBe(9n);
    expect(fake.requests.length).toBe(2);
    await fake.stop();
    fake = startFakeRpc();
    fake.handle("getMultipleAccounts", () => ({ error: { code: -32602, message: "Invalid param" } }));
    const refused = await failure(chain().reader.getAccounts([key]));
    expect(codeOf(refused)).toBe("CHAIN_REJECTED");
    expect(fake.requests.length).toBe(1);
    // An address that is not one is refused before anything is asked.
    expect(codeOf(await failure(chain().reader.getAccounts(["nope"])))).toBe("CHAIN_REJECTED");
    expect(fake.requests.length).toBe(1);
  });

  test("a provider that never answers is a timeout, retried a bounded number of times", async () => {
    fake = startFakeRpc();
    // An answer later than the test's own bound: the call can only end by its timeouts.
    fake.handle("getBlockHeight", () => ({ delayMs: 60_000, thenReply: { result: 5 } }));
    const { reader, sleeps } = chain({ timeoutMs: 100, retries: 2 });
    const err = await failure(reader.getBlockHeight());
    expect(codeOf(err)).toBe("CHAIN_TIMEOUT");
    expect(isChainUnavailable(err)).toBe(true);
    expect(fake.requests.length).toBe(3);
    expect(sleeps.length).toBe(2);
  });

  test("429 then success: retried with exponential backoff and jitter", async () => {
    fake = startFakeRpc();
    fake.handle("getBlockHeight", (_p, attempt) => (attempt < 2 ? { status: 429, body: "slow down" } : { result: 77 }));
    const { reader, sleeps } = chain({ retries: 3 });
    expect(await reader.getBlockHeight()).toBe(77n);
    // base 100 ms doubling, times random() = 0.5
    expect(sleeps).toEqual([50, 100]);
  });

  test("429 to the end surfaces as rate limited; 5xx as provider error; both scrubbed", async () => {
    fake = startFakeRpc(`/v2/${SECRET}?api-key=${SECRET}`);
    fake.handle("getBlockHeight", () => ({ status: 429, body: `limit for ${fake.url}` }));
    fake.handle("getLatestBlockhash", () => ({ status: 503, body: `upstream ${fake.url} down` }));
    const { reader } = chain();
    const limited = await failure(reader.getBlockHeight());
    expect(codeOf(limited)).toBe("CHAIN_RATE_LIMITED");
    expectScrubbed(limited);
    const down = await failure(reader.getLatestBlockhash());
    expect(codeOf(down)).toBe("CHAIN_PROVIDER_FAILED");
    expectScrubbed(down);
    expect(fake.requests.filter((r) => r.method === "getLatestBlockhash").length).toBe(3);
  });

  test("malformed answers are typed (and retried): wrong shape, not JSON", async () => {
    fake = startFakeRpc();
    fake.handle("getBlockHeight", () => ({ result: "not a number" }));
    fake.handle("getLatestBlockhash", () => ({ raw: "<html>gateway</html>" }));
    const { reader } = chain({ retries: 1 });
    expect(codeOf(await failure(reader.getBlockHeight()))).toBe("CHAIN_BAD_RESPONSE");
    expect(codeOf(await failure(reader.getLatestBlockhash()))).toBe("CHAIN_BAD_RESPONSE");
    expect(fake.requests.length).toBe(4);
  });

  test("a request the node refuses is not retried, and the echoed URL/key is scrubbed", async () => {
    fake = startFakeRpc(`/${SECRET}`);
    fake.handle("getBlockHeight", () => ({
      error: { code: -32602, message: `Invalid params (node ${fake.url}, key ${SECRET})` },
    }));
    const { reader } = chain();
    const err = await failure(reader.getBlockHeight());
    expect(codeOf(err)).toBe("CHAIN_REJECTED");
    expect(isAppError(err) && err.context.rpcCode).toBe(-32602);
    expect(fake.requests.length).toBe(1);
    expectScrubbed(err);
  });

  test("HTTP 401 (a bad key) is refused without retry and without the key", async () => {
    fake = startFakeRpc(`/?api-key=${SECRET}`);
    fake.handle("getBlockHeight", () => ({ status: 401, body: `bad key ${SECRET}` }));
    const err = await failure(chain().reader.getBlockHeight());
    expect(codeOf(err)).toBe("CHAIN_REJECTED");
    expect(fake.requests.length).toBe(1);
    expectScrubbed(err);
  });

  test("a refused connection is a provider failure without the URL", async () => {
    fake = startFakeRpc(`/${SECRET}`);
    const url = fake.url;
    await fake.stop();
    const { reader } = createRpcChain({ rpcUrl: url, timeoutMs: 200, retries: 1, sleep: async () => {} });
    const err = await failure(reader.getBlockHeight());
    expect(isChainUnavailable(err)).toBe(true);
    const text = `${err.message} ${err.stack}`;
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(new URL(url).host);
    fake = startFakeRpc();
  });

  test("getSignatureStatuses maps states; getTransaction maps a v0 transaction with loaded addresses", async () => {
    fake = startFakeRpc();
    const payer = Keypair.generate().publicKey.toBase58();
    const program = Keypair.generate().publicKey.toBase58();
    const loadedW = Keypair.generate().publicKey.toBase58();
    const loadedR = Keypair.generate().publicKey.toBase58();
    fake.handle("getSignatureStatuses", () =>
      context([
        { slot: 9, confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } },
        null,
        {
          slot: 10,
          confirmations: 1,
          err: { InstructionError: [0, { Custom: 1 }] },
          confirmationStatus: "confirmed",
          status: { Err: {} },
        },
      ]),
    );
    fake.handle("getTransaction", () => ({
      result: {
        slot: 42,
        blockTime: 1_760_000_000,
        version: 0,
        transaction: {
          signatures: ["5".repeat(88)],
          message: {
            header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
            accountKeys: [payer, program],
            recentBlockhash: PublicKey.default.toBase58(),
            instructions: [{ programIdIndex: 1, accounts: [0, 2, 3], data: bs58.encode([1, 2, 3]), stackHeight: null }],
            addressTableLookups: [
              { accountKey: Keypair.generate().publicKey.toBase58(), writableIndexes: [0], readonlyIndexes: [1] },
            ],
          },
        },
        meta: {
          err: null,
          fee: 5000,
          preBalances: [10_000, 1, 2, 3],
          postBalances: [5_000, 1, 2, 3],
          innerInstructions: [
            {
              index: 0,
              instructions: [{ programIdIndex: 1, accounts: [3], data: bs58.encode([9, 9]), stackHeight: 2 }],
            },
          ],
          logMessages: ["Program log: hi"],
          preTokenBalances: [],
          postTokenBalances: [
            {
              accountIndex: 2,
              mint: program,
              owner: payer,
              programId: program,
              uiTokenAmount: { amount: "123456789012345678", decimals: 6, uiAmount: 1, uiAmountString: "1" },
            },
          ],
          loadedAddresses: { writable: [loadedW], readonly: [loadedR] },
          rewards: [],
          status: { Ok: null },
          computeUnitsConsumed: 100,
        },
      },
    }));
    const { reader } = chain();
    const statuses = await reader.getSignatureStatuses(["a", "b", "c"], true);
    expect(fake.requests[0]!.params[1]).toEqual({ searchTransactionHistory: true });
    expect(statuses.get("a")).toEqual({ slot: 9n, err: null, confirmationStatus: "finalized", confirmations: null });
    expect(statuses.get("b")).toBeNull();
    expect(statuses.get("c")!.err).toContain("Custom");
    // what the settle loop paces its questions by
    expect(statuses.get("c")!.confirmations).toBe(1);
    const tx = (await reader.getTransaction("sig"))!;
    expect(tx.accountKeys).toEqual([payer, program, loadedW, loadedR]);
    expect(tx.instructions).toEqual([
      { programId: program, accounts: [payer, loadedW, loadedR], data: Uint8Array.from([1, 2, 3]) },
    ]);
    expect(tx.innerInstructions).toEqual([
      { programId: program, accounts: [loadedR], data: Uint8Array.from([9, 9]), outerIndex: 0 },
    ]);
    expect(tx.preBalances).toEqual([10_000n, 1n, 2n, 3n]);
    expect(tx.postBalances[0]).toBe(5_000n);
    expect(tx.postTokenBalances).toEqual([
      { accountIndex: 2, mint: program, owner: payer, amount: 123456789012345678n },
    ]);
    expect(tx.blockTime).toEqual(new Date(1_760_000_000_000));
    expect(tx.slot).toBe(42n);
  });
});

describe("sender", () => {
  const payer = Keypair.generate();
  const KEY = { commandKey: { kind: "withdrawal", withdrawalId: 1 } } as const;
  const blockhash = Keypair.generate().publicKey.toBase58();
  const ix = SystemProgram.transfer({
    fromPubkey: payer.publicKey,
    toPubkey: Keypair.generate().publicKey,
    lamports: 1n,
  });

  test("prepare signs without sending; send sends exactly those bytes; a resend is harmless", async () => {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", () => context({ blockhash, lastValidBlockHeight: 1_150 }));
    let sends = 0;
    fake.handle("sendTransaction", (params) => {
      sends++;
      const tx = VersionedTransaction.deserialize(Buffer.from(params[0] as string, "base64"));
      return sends === 1
        ? { result: bs58.encode(tx.signatures[0]!) }
        : {
            error: {
              code: -32002,
              message: "Transaction simulation failed: This transaction has already been processed",
            },
          };
    });
    const { sender } = chain();
    const prepared = await sender.prepare([ix], payer, [], KEY);
    // The blockhash, a simulation to size the unit limit (this node has none: the table's limit),
    // the recent fees to price it; nothing sent.
    expect(fake.requests.map((r) => r.method)).toEqual([
      "getLatestBlockhash",
      "simulateTransaction",
      "getRecentPrioritizationFees",
    ]);
    expect(prepared.lastValidBlockHeight).toBe(1_150n);
    const decoded = VersionedTransaction.deserialize(prepared.wire);
    expect(bs58.encode(decoded.signatures[0]!)).toBe(prepared.signature);
    expect(decoded.message.recentBlockhash).toBe(blockhash);
    await sender.send(prepared);
    await sender.send(prepared);
    const sent = fake.requests.filter((r) => r.method === "sendTransaction");
    expect(sent.length).toBe(2);
    for (const r of sent) {
      expect(r.params[0]).toBe(Buffer.from(prepared.wire).toString("base64"));
      expect((r.params[1] as { skipPreflight: boolean }).skipPreflight).toBe(true);
    }
  });

  test("prepare refuses a transaction missing a signer", async () => {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", () => context({ blockhash, lastValidBlockHeight: 10 }));
    const other = Keypair.generate();
    const needsOther = SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: payer.publicKey, lamports: 1n });
    await expect(chain().sender.prepare([needsOther], payer, [], KEY)).rejects.toThrow();
    expect((await chain().sender.prepare([needsOther], payer, [other], KEY)).signature.length).toBeGreaterThan(80);
  });

  test("prepare refuses a command key too long for one memo, as it refuses an oversize transaction", async () => {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", () => context({ blockhash, lastValidBlockHeight: 10 }));
    const tokenIds = Array.from({ length: 200 }, (_, i) => 1_000_000 + i);
    const refused = await chain()
      .sender.prepare([ix], payer, [], { commandKey: { kind: "sweeps", tokenIds } })
      .catch((error: unknown) => error);
    expect(isChainRejected(refused)).toBe(true);
    expect((refused as Error).message).toBe("prepare: the command key is too long (a memo is 1 to 500 bytes)");
  });

  test("statuses asked ahead for several transactions decide each outcome once, with no further ask", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({
      result: { absoluteSlot: 500, blockHeight: 100, epoch: 0, slotIndex: 0, slotsInEpoch: 1, transactionCount: 0 },
    }));
    const finalized = { confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } };
    const landing = { slot: 9, confirmations: 2, err: null, confirmationStatus: "confirmed", status: { Ok: null } };
    const statusOf: Record<string, unknown> = {
      a: { ...finalized, slot: 5 },
      b: { ...finalized, slot: 6 },
      c: landing,
    };
    fake.handle("getSignatureStatuses", (params) => ({
      result: { context: { slot: 540 }, value: (params[0] as string[]).map((sig) => statusOf[sig] ?? null) },
    }));
    const { sender } = chain();
    await sender.prefetchOutcomes!(["a", "b", "c", "a"]);
    const methods = () => fake!.requests.map((r) => r.method);
    expect(methods()).toEqual(["getSignatureStatuses", "getEpochInfo"]);
    expect(fake.requests[0]!.params[0]).toEqual(["a", "b", "c"]);
    expect(await sender.outcome("a", 150n, 0n, { blockTime: false })).toEqual({
      kind: "confirmed",
      slot: 5n,
      blockTime: null,
    });
    expect(await sender.outcome("b", 150n, 0n, { blockTime: false })).toEqual({
      kind: "confirmed",
      slot: 6n,
      blockTime: null,
    });
    expect(await sender.outcome("c", 150n, 0n, { blockTime: false })).toEqual({ kind: "pending" });
    expect(methods()).toHaveLength(2);
    // Each is taken once: asked again, the node is asked (and now says c is finalized).
    statusOf.c = { ...finalized, slot: 9 };
    expect(await sender.outcome("c", 150n, 0n, { blockTime: false })).toEqual({
      kind: "confirmed",
      slot: 9n,
      blockTime: null,
    });
    // The first read's finalized height bounds the chain's from then on: found statuses need no
    // height, so the status is asked alone.
    expect(methods()).toEqual(["getSignatureStatuses", "getEpochInfo", "getSignatureStatuses"]);
    expect(fake.requests[2]!.params[0]).toEqual(["c"]);
  });

  test("statuses asked ahead from a node behind its finalized slot are not kept", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({
      result: { absoluteSlot: 500, blockHeight: 100, epoch: 0, slotIndex: 0, slotsInEpoch: 1, transactionCount: 0 },
    }));
    let searchedAt = 400;
    fake.handle("getSignatureStatuses", (params) => ({
      result: {
        context: { slot: searchedAt },
        value: (params[0] as string[]).map(() => ({
          slot: 5,
          confirmations: null,
          err: null,
          confirmationStatus: "finalized",
          status: { Ok: null },
        })),
      },
    }));
    const { sender } = chain();
    await sender.prefetchOutcomes!(["a", "b"]);
    const asked = fake.requests.length;
    searchedAt = 540;
    expect((await sender.outcome("a", 150n, 0n, { blockTime: false })).kind).toBe("confirmed");
    expect(fake.requests.length).toBeGreaterThan(asked);
  });

  test("outcome: confirmed, failed, pending, and expired only past lastValidBlockHeight with nothing found", async () => {
    fake = startFakeRpc();
    let status: unknown = null;
    // A chain with no skipped slots: height h is finalized at slot 400 + h, and the node has
    // processed 50 slots past it.
    let finalizedHeight = 100;
    fake.handle("getEpochInfo", () => ({
      result: {
        absoluteSlot: 400 + finalizedHeight,
        blockHeight: finalizedHeight,
        epoch: 0,
        slotIndex: 0,
        slotsInEpoch: 1,
        transactionCount: 0,
      },
    }));
    fake.handle("getSignatureStatuses", () => ({
      result: { context: { slot: 450 + finalizedHeight }, value: [status] },
    }));
    fake.handle("getBlockTime", () => ({ result: 1_760_000_000 }));
    // The finalized blocks (none skipped), none holding the transaction: what corroborates an absence.
    fake.handle("getBlocks", (p) => {
      const [from, to] = p as [number, number];
      return {
        result: Array.from({ length: Math.max(0, Math.min(to, 400 + finalizedHeight) - from + 1) }, (_, i) => from + i),
      };
    });
    fake.handle("getBlock", (p) => ({
      result: { parentSlot: (p[0] as number) - 1, blockHeight: (p[0] as number) - 400, signatures: ["other"] },
    }));
    const { sender } = chain();
    const methodsSince = (n: number) => fake!.requests.slice(n).map((r) => r.method);

    status = { slot: 5, confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } };
    expect(await sender.outcome("s", 150n)).toEqual({
      kind: "confirmed",
      slot: 5n,
      blockTime: new Date(1_760_000_000_000),
    });
    // A caller that reads the transaction itself (it carries the block's time) is not billed for
    // it; and once a finalized height is known, a found status needs no height: asked alone.
    const beforeNoTime = fake.requests.length;
    expect(await sender.outcome("s", 150n, 0n, { blockTime: false })).toEqual({
      kind: "confirmed",
      slot: 5n,
      blockTime: null,
    });
    expect(methodsSince(beforeNoTime)).toEqual(["getSignatureStatuses"]);
    status = {
      slot: 6,
      confirmations: null,
      err: { InstructionError: [1, { Custom: 6049 }] },
      confirmationStatus: "finalized",
      status: { Err: {} },
    };
    const failed = await sender.outcome("s", 150n);
    expect(failed.kind).toBe("failed");
    // processed and confirmed are still landing: money moves at finalized
    status = { slot: 7, confirmations: 0, err: null, confirmationStatus: "processed", status: { Ok: null } };
    expect(await sender.outcome("s", 150n)).toEqual({ kind: "pending" });
    status = { slot: 7, confirmations: 3, err: null, confirmationStatus: "confirmed", status: { Ok: null } };
    expect(await sender.outcome("s", 150n)).toEqual({ kind: "pending" });
    // Absent, and the node's slot (550) is at most 50 blocks past the known height 100: under the
    // transaction's last valid height 150, so pending without asking the height.
    status = null;
    const beforeYoung = fake.requests.length;
    expect(await sender.outcome("s", 150n)).toEqual({ kind: "pending" });
    expect(methodsSince(beforeYoung)).toEqual(["getSignatureStatuses"]);
    // Past the bound, the height is asked with the status: 150 is still valid (the transaction
    // may land in block 150).
    finalizedHeight = 150;
    const beforeBound = fake.requests.length;
    expect(await sender.outcome("s", 150n)).toEqual({ kind: "pending" });
    expect(methodsSince(beforeBound)).toEqual(["getSignatureStatuses", "getSignatureStatuses", "getEpochInfo"]);
    finalizedHeight = 151;
    const beforeExpiry = fake.requests.length;
    // Sent from slot 540 (height 140): blocks 540 to 551 (height 151) are where it could have landed.
    expect(await sender.outcome("s", 150n, 540n)).toEqual({ kind: "expired" });
    // An absence past expiry is a candidate on one batch that also holds the node's history floor;
    // it is expired once the finalized blocks it could have landed in were read without it (one
    // list, then each block). The cheaper reads before only found the absence.
    expect(methodsSince(beforeExpiry)).toEqual([
      "getSignatureStatuses",
      "getSignatureStatuses",
      "getEpochInfo",
      "getSignatureStatuses",
      "getEpochInfo",
      "minimumLedgerSlot",
      "getFirstAvailableBlock",
      "getBlocks",
      ...Array.from({ length: 12 }, () => "getBlock"),
    ]);
    // Without the send's slot (signed before the journal), only an archive could prove it.
    expect((await sender.outcome("s", 150n)).kind).toBe("unknown");
    // a late-found status wins over the height
    status = { slot: 8, confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } };
    const beforeFound = fake.requests.length;
    expect((await sender.outcome("s", 150n)).kind).toBe("confirmed");

    // A status found needs no floor and no height: the history search is all that is asked.
    const order = fake.requests.slice(beforeFound).filter((r) => r.method !== "getBlockTime");
    expect(order.map((r) => r.method)).toEqual(["getSignatureStatuses"]);
    expect(order[0]!.params[1]).toEqual({ searchTransactionHistory: true });
    // The height, when asked, is the finalized one.
    const epochAsk = fake.requests.find((r) => r.method === "getEpochInfo")!;
    expect((epochAsk.params[0] as { commitment: string }).commitment).toBe("finalized");
  });

  test("an outage while checking is unknown, never 'expired'", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({
      result: { absoluteSlot: 500, blockHeight: 10_000, epoch: 0, slotIndex: 0, slotsInEpoch: 1, transactionCount: 0 },
    }));
    fake.handle("getSignatureStatuses", () => ({ status: 502 }));
    expect((await chain().sender.outcome("s", 1n)).kind).toBe("unknown");
  });
});
