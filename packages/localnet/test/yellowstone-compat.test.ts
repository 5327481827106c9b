/**
 * Yellowstone as upstream (rpcpool/yellowstone-grpc) answers it, through the official client:
 * unary calls at a commitment, block meta parents, and what the Subscribe filters accept, refuse
 * and match. One test runs the chain as a separate process with its clock moving.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { createTransferInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { type Connection, Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import Client, {
  CommitmentLevel,
  CompressedAccountFilterSet,
  GetSlotRequest,
  GetSlotResponse,
  SlotStatus,
  type SubscribeRequest,
  SubscribeRequest as SubscribeRequestMessage,
  SubscribeRequestFilterAccounts,
  type SubscribeUpdate,
  SubscribeUpdate as SubscribeUpdateMessage,
  TokenAccountExpansionControlFlag,
} from "@triton-one/yellowstone-grpc";
import bs58 from "bs58";
import type { LocalChain } from "../src/index";
import { type ChainProcess, startChainProcess } from "./agave-process";
import { signedTx, startTestChain, waitFor } from "./helpers";

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

const LEVELS = [
  [CommitmentLevel.PROCESSED, "processed"],
  [CommitmentLevel.CONFIRMED, "confirmed"],
  [CommitmentLevel.FINALIZED, "finalized"],
] as const;

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

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function connectedClient(url = chain.grpcUrl): Promise<Client> {
  const client = new Client(url, undefined, undefined);
  await client.connect();
  return client;
}

/** A subscription through the official client; its first pong says the server took the filters. */
async function subscribe(req: SubscribeRequest, url = chain.grpcUrl) {
  const stream = await (await connectedClient(url)).subscribe();
  streams.push(stream);
  const updates: SubscribeUpdate[] = [];
  const errors: Error[] = [];
  stream.on("data", (u: SubscribeUpdate) => updates.push(u));
  stream.on("error", (e: Error) => errors.push(e));
  const pingId = Math.floor(Math.random() * 1_000_000);
  stream.write({ ...req, ping: { id: pingId } });
  await waitFor("subscription applied", () => updates.some((u) => u.pong?.id === pingId) || errors.length > 0);
  if (errors.length) throw errors[0];
  return { updates, errors, stream };
}

/** The status the server ended a refused subscription with, as the client reports it. */
async function refusal(req: SubscribeRequest): Promise<string> {
  try {
    await subscribe(req);
  } catch (e) {
    // the napi client puts the server's status in the cause: "code: '…', message: \"…\""
    return String((e as Error & { cause?: unknown }).cause ?? e);
  }
  throw new Error("the subscription was accepted");
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

/** A keypair from a fixed seed: cuckoo matches depend on the keys, so the tests use the same ones each run. */
const fixedKey = (n: number) =>
  Keypair.fromSeed(Uint8Array.from({ length: 32 }, (_, i) => (i < 4 ? (n >> (8 * i)) & 0xff : i)));

// ---------------------------------------------------------------- raw gRPC (what the official client cannot send)

function rawClient(): grpc.Client {
  return new grpc.Client(chain.grpcUrl.replace(/^http:\/\//, ""), grpc.credentials.createInsecure());
}

function lengthDelimited(field: number, bytes: Uint8Array): Buffer {
  const len: number[] = [];
  for (let n = bytes.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), bytes]);
}

/** Sends raw SubscribeRequest bytes; resolves with the status the stream ended with, or "accepted" on a pong. */
function rawSubscribe(bytes: Uint8Array): Promise<{ code: number; details: string } | "accepted"> {
  const client = rawClient();
  const call = client.makeBidiStreamRequest(
    "/geyser.Geyser/Subscribe",
    (b: Buffer) => b,
    (b: Buffer) => SubscribeUpdateMessage.decode(b),
  );
  return new Promise((resolve) => {
    const done = (v: { code: number; details: string } | "accepted") => {
      call.cancel();
      client.close();
      resolve(v);
    };
    call.on("data", (u: SubscribeUpdate) => u.pong && done("accepted"));
    call.on("error", (e: grpc.ServiceError) => done({ code: e.code, details: e.details }));
    call.write(
      Buffer.concat([bytes, Buffer.from(SubscribeRequestMessage.encode(request({ ping: { id: 1 } })).finish())]),
    );
  });
}

// ---------------------------------------------------------------- unary calls

describe("unary calls at a commitment", () => {
  test("GetSlot, GetBlockHeight, GetLatestBlockhash and IsBlockhashValid answer at the asked commitment", async () => {
    // confirmed JSON-RPC reads at the last closed slot, as agave's and the localnet command's do
    await chain.stop();
    ({ chain, connection } = await startTestChain({ strictConfirmed: true }));
    const client = await connectedClient();
    chain.node.advanceSlots(40);
    let processedBefore: Awaited<ReturnType<Client["getLatestBlockhash"]>> | null = null;
    for (let round = 0; round < 3; round++) {
      const open = chain.node.getSlot();
      const slots = await Promise.all(LEVELS.map(([level]) => client.getSlot(level)));
      expect(slots.map((s) => BigInt(s.slot))).toEqual([open, open - 1n, open - 33n]);
      // no commitment: processed, as upstream parses it
      expect((await client.getSlot()).slot).toBe(open.toString());
      expect((await client.getBlockHeight()).blockHeight).toBe((await client.getBlockHeight(0)).blockHeight);

      for (const [level, name] of LEVELS) {
        const height = BigInt((await client.getBlockHeight(level)).blockHeight);
        const latest = await client.getLatestBlockhash(level);
        expect(height).toBe(chain.node.getBlockHeight() - (open - BigInt(latest.slot)));
        // the JSON-RPC at the same commitment answers the same slot, height and blockhash
        expect(BigInt(await rpc<number>(chain.rpcUrl, "getSlot", [{ commitment: name }]))).toBe(BigInt(latest.slot));
        expect(BigInt(await rpc<number>(chain.rpcUrl, "getBlockHeight", [{ commitment: name }]))).toBe(height);
        const viaRpc = await rpc<{
          context: { slot: number };
          value: { blockhash: string; lastValidBlockHeight: number };
        }>(chain.rpcUrl, "getLatestBlockhash", [{ commitment: name }]);
        expect([
          BigInt(viaRpc.context.slot),
          viaRpc.value.blockhash,
          BigInt(viaRpc.value.lastValidBlockHeight),
        ]).toEqual([BigInt(latest.slot), latest.blockhash, BigInt(latest.lastValidBlockHeight)]);
      }
      // confirmed is the chain as it was processed one slot earlier
      if (processedBefore) expect(await client.getLatestBlockhash(CommitmentLevel.CONFIRMED)).toEqual(processedBefore);

      // the newest blockhash is not yet in the confirmed or finalized chain; the finalized one is in all three
      const newest = (await client.getLatestBlockhash(CommitmentLevel.PROCESSED)).blockhash;
      const finalized = (await client.getLatestBlockhash(CommitmentLevel.FINALIZED)).blockhash;
      for (const [hash, expected] of [
        [newest, [true, false, false]],
        [finalized, [true, true, true]],
      ] as const) {
        const answers = await Promise.all(LEVELS.map(([level]) => client.isBlockhashValid(hash, level)));
        expect(answers.map((a) => a.valid)).toEqual([...expected]);
        expect(answers.map((a) => BigInt(a.slot))).toEqual([open, open - 1n, open - 33n]);
        for (const [level, name] of LEVELS) {
          const viaRpc = await rpc<{ value: boolean }>(chain.rpcUrl, "isBlockhashValid", [hash, { commitment: name }]);
          expect(viaRpc.value).toBe(answers[level]!.valid);
        }
      }
      processedBefore = await client.getLatestBlockhash(CommitmentLevel.PROCESSED);
      chain.node.advanceSlots(1);
    }
  }, 60_000);

  test("a commitment outside processed, confirmed and finalized is refused with UNKNOWN, as upstream", async () => {
    const client = rawClient();
    const answer = await new Promise<grpc.ServiceError | GetSlotResponse>((resolve) =>
      client.makeUnaryRequest(
        "/geyser.Geyser/GetSlot",
        (b: Buffer) => b,
        (b: Buffer) => GetSlotResponse.decode(b),
        Buffer.from(GetSlotRequest.encode({ commitment: 7 as CommitmentLevel }).finish()),
        (e, r) => resolve(e ?? r!),
      ),
    );
    client.close();
    expect(answer).toMatchObject({ code: grpc.status.UNKNOWN, details: "failed to create CommitmentLevel from 7" });
  });
});

describe("other methods", () => {
  test("SubscribeReplayInfo names the oldest slot fromSlot can still reach; SubscribeDeshred is UNIMPLEMENTED", async () => {
    const client = await connectedClient();
    const first = chain.node.getSlot();
    chain.node.advanceSlots(3);
    expect((await client.subscribeReplayInfo()).firstAvailable).toBe(first.toString());
    // the local chain has no shreds: the method is not served
    const stream = await client.subscribeDeshred().catch((e: Error) => e);
    const error =
      stream instanceof Error
        ? stream
        : await new Promise<Error>((resolve) => {
            streams.push(stream);
            stream.on("error", resolve);
            stream.write({ deshredTransactions: {}, slots: {} });
          });
    expect(String((error as Error & { cause?: unknown }).cause ?? error)).toContain(
      "does not implement the method /geyser.Geyser/SubscribeDeshred",
    );
  }, 30_000);
});

// ---------------------------------------------------------------- block meta

describe("blocksMeta", () => {
  test("each block meta carries its parent's slot and blockhash, as getBlock has them, live and replayed", async () => {
    const confirmed = await subscribe(request({ blocksMeta: { m: {} }, commitment: CommitmentLevel.CONFIRMED }));
    const finalized = await subscribe(request({ blocksMeta: { m: {} }, commitment: CommitmentLevel.FINALIZED }));
    const first = chain.node.getSlot();
    await transfer(Keypair.generate().publicKey, 1_000_000n);
    chain.node.advanceSlots(36);
    await waitFor("36 confirmed block metas", () => confirmed.updates.filter((u) => u.blockMeta).length >= 36);
    await waitFor("finalized block metas", () => finalized.updates.filter((u) => u.blockMeta).length >= 3);
    const metas = confirmed.updates.filter((u) => u.blockMeta).map((u) => u.blockMeta!);
    expect(BigInt(metas[0]!.slot)).toBe(first);
    for (let i = 1; i < metas.length; i++) {
      const [parent, meta] = [metas[i - 1]!, metas[i]!];
      expect(BigInt(meta.slot)).toBe(BigInt(parent.slot) + 1n);
      expect(meta.parentSlot).toBe(parent.slot);
      expect(meta.parentBlockhash).toBe(parent.blockhash);
      expect(meta.blockhash).not.toBe(parent.blockhash);
    }
    expect(metas[0]!.executedTransactionCount).toBe("1");
    // the same blocks as getBlock gives them
    for (const meta of metas.slice(0, 3)) {
      const block = await rpc<{ blockhash: string; previousBlockhash: string; parentSlot: number }>(
        chain.rpcUrl,
        "getBlock",
        [Number(meta.slot), { commitment: "confirmed", transactionDetails: "none", rewards: false }],
      );
      expect([block.blockhash, block.previousBlockhash, block.parentSlot.toString()]).toEqual([
        meta.blockhash,
        meta.parentBlockhash,
        meta.parentSlot,
      ]);
    }
    // finalized subscribers get the same blocks, later
    for (const f of finalized.updates.filter((u) => u.blockMeta).map((u) => u.blockMeta!)) {
      const same = metas.find((m) => m.slot === f.slot)!;
      expect([f.blockhash, f.parentBlockhash, f.parentSlot]).toEqual([
        same.blockhash,
        same.parentBlockhash,
        same.parentSlot,
      ]);
    }
    // a confirmed GetLatestBlockhash names the newest confirmed block
    const latest = await (await connectedClient()).getLatestBlockhash(CommitmentLevel.CONFIRMED);
    expect(latest.blockhash).toBe(metas.at(-1)!.blockhash);
    expect(latest.slot).toBe(metas.at(-1)!.slot);
    // a replay from fromSlot carries the same parents
    const replay = await subscribe(
      request({ blocksMeta: { m: {} }, commitment: CommitmentLevel.CONFIRMED, fromSlot: first.toString() }),
    );
    // The pong that ends subscribe() is written before the replay, so the replay may still be arriving.
    const replayedMetas = () => replay.updates.filter((u) => u.blockMeta).map((u) => u.blockMeta!);
    await waitFor("the replay", () => replayedMetas().length >= metas.length);
    const replayed = replayedMetas();
    expect(replayed.map((m) => [m.slot, m.blockhash, m.parentBlockhash])).toEqual(
      metas.map((m) => [m.slot, m.blockhash, m.parentBlockhash]),
    );
  }, 60_000);
});

describe("blocks", () => {
  test("a blocks filter gets each block with its meta, the transactions and accounts it selects", async () => {
    const watched = Keypair.generate().publicKey;
    const sub = await subscribe(
      request({
        blocks: {
          all: { accountInclude: [] },
          mine: { accountInclude: [watched.toBase58()], includeAccounts: true },
          bare: { accountInclude: [], includeTransactions: false },
        },
        blocksMeta: { m: {} },
        accountsDataSlice: [{ offset: "0", length: "0" }],
        commitment: CommitmentLevel.CONFIRMED,
      }),
    );
    const slot = chain.node.getSlot();
    const mine = await transfer(watched, 1_000_000n);
    await transfer(watched, 2_000_000n);
    const other = await transfer(Keypair.generate().publicKey, 1_000_000n);
    chain.node.advanceSlots(1);
    await waitFor("three blocks", () => sub.updates.filter((u) => u.block).length >= 3);
    const meta = sub.updates.find((u) => u.blockMeta)!.blockMeta!;
    const blocks = Object.fromEntries(sub.updates.filter((u) => u.block).map((u) => [u.filters[0]!, u.block!]));
    for (const b of Object.values(blocks)) {
      expect([b.slot, b.blockhash, b.parentSlot, b.parentBlockhash, b.executedTransactionCount]).toEqual([
        slot.toString(),
        meta.blockhash,
        meta.parentSlot,
        meta.parentBlockhash,
        "3",
      ]);
      // the treasury, twice-written `watched` once, and the third recipient
      expect(b.updatedAccountCount).toBe("3");
      expect(b.entries).toEqual([]);
    }
    const sigs = (name: string) => blocks[name]!.transactions.map((t) => bs58.encode(t.signature));
    expect(sigs("all")).toHaveLength(3);
    expect(sigs("all")).toContain(other);
    expect(sigs("mine")).toHaveLength(2);
    expect(sigs("mine")).toContain(mine);
    expect(sigs("bare")).toEqual([]);
    expect(blocks.all!.accounts).toEqual([]);
    // the watched account once, at its last write, sliced as the request asks
    expect(blocks.mine!.accounts.map((a) => [bs58.encode(a.pubkey), a.lamports, a.data.length])).toEqual([
      [watched.toBase58(), "3000000", 0],
    ]);
  }, 30_000);
});

// ---------------------------------------------------------------- what a subscription may ask

describe("Subscribe filters", () => {
  test("requests upstream refuses are refused in its words, and kinds the local chain lacks are refused", async () => {
    const key = Keypair.generate().publicKey.toBase58();
    const accounts = (filters: SubscribeRequestFilterAccounts["filters"]) =>
      request({ accounts: { a: { account: [], owner: [], filters } } });
    const tx = (extra: object) =>
      request({ transactions: { t: { accountInclude: [key], accountExclude: [], accountRequired: [], ...extra } } });
    const cases: [SubscribeRequest, string][] = [
      [request({ entry: { e: {} } }), "entry subscriptions are not supported by the local chain"],
      [request({ blocks: { b: { accountInclude: [], includeEntries: true } } }), "`include_entries` is not allowed"],
      [request({ accounts: { a: { account: ["0OIl"], owner: [], filters: [] } } }), "Invalid Base58 string"],
      [request({ accounts: { a: { account: [], owner: ["abc"], filters: [] } } }), "String is the wrong size"],
      [accounts([{ memcmp: { offset: "0", base58: "0OIl" } }]), "invalid base58"],
      [accounts([{ memcmp: { offset: "0", bytes: new Uint8Array(129) } }]), "data too large"],
      [accounts([{ memcmp: { offset: "0" } }]), "data for memcmp should be defined"],
      [accounts([{ datasize: "1" }, { datasize: "2" }]), "datasize used more than once"],
      [accounts([{ tokenAccountState: false }]), "token_account_state only allowed to be true"],
      [accounts([{ lamports: {} }]), "cmp for lamports should be defined"],
      [accounts([{}]), "filter should be defined"],
      [accounts(Array.from({ length: 5 }, () => ({ lamports: { gt: "0" } }))), "Too many filters provided; max 4"],
      [tx({ signature: "abc" }), "string decoded to wrong size for signature"],
      [tx({ tokenAccounts: 5 }), "invalid token_accounts mode value 5; expected ALL (0) or BALANCE_CHANGED (1)"],
      [
        request({
          accountsDataSlice: [
            { offset: "8", length: "4" },
            { offset: "0", length: "4" },
          ],
        }),
        "failed to create filter: data slices out of order",
      ],
      [
        request({
          accountsDataSlice: [
            { offset: "0", length: "8" },
            { offset: "4", length: "4" },
          ],
        }),
        "failed to create filter: data slices overlapped",
      ],
    ];
    for (const [req, why] of cases) {
      // raw: the official client checks some of these itself and would not send them
      expect([why, await rawSubscribe(SubscribeRequestMessage.encode(req).finish())]).toEqual([
        why,
        { code: grpc.status.INVALID_ARGUMENT, details: `failed to create filter: ${why}` },
      ]);
    }
    // and through the official client, which passes the server's status on
    for (const [req, why] of [cases[0]!, cases[3]!]) {
      const status = await refusal(req);
      expect(status).toContain("invalid argument");
      expect(status).toContain(`"failed to create filter: ${why}"`);
    }
  }, 60_000);

  test("fields the server does not read refuse the request instead of widening the filter", async () => {
    const key = Keypair.generate().publicKey.toBase58();
    // a filter field newer than this server's proto (field 7 of the accounts filter)
    const filter = Buffer.concat([
      Buffer.from(SubscribeRequestFilterAccounts.encode({ account: [key], owner: [], filters: [] }).finish()),
      Buffer.from([(7 << 3) | 0, 1]),
    ]);
    const entry = Buffer.concat([lengthDelimited(1, Buffer.from("a")), lengthDelimited(2, filter)]);
    expect(await rawSubscribe(lengthDelimited(1, entry))).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: "failed to create filter: field 7 of SubscribeRequestFilterAccounts is not supported by the local chain",
    });
    // a request field newer than this server's proto (field 12)
    expect(await rawSubscribe(Buffer.from([(12 << 3) | 0, 1]))).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: "failed to create filter: field 12 of SubscribeRequest is not supported by the local chain",
    });
    // a commitment outside the three
    expect(await rawSubscribe(Buffer.from([(6 << 3) | 0, 7]))).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: "failed to create filter: failed to create CommitmentLevel from 7",
    });
    // and what the server reads is accepted
    expect(
      await rawSubscribe(
        SubscribeRequestMessage.encode(
          request({ accounts: { a: { account: [key], owner: [], filters: [] } } }),
        ).finish(),
      ),
    ).toBe("accepted");
  }, 30_000);

  test("a cuckoo accounts filter selects the accounts in its set, together with the listed ones", async () => {
    const members = Array.from({ length: 150 }, (_, i) => fixedKey(i).publicKey);
    const outsiders = Array.from({ length: 40 }, (_, i) => fixedKey(1_000 + i).publicKey);
    const listed = fixedKey(2_000).publicKey;
    // 150 keys in a set sized for 100: many sit in their second bucket
    const set = new CompressedAccountFilterSet(160);
    for (const k of members) expect(set.insert(k.toBase58())).toBe(true);
    const cuckoo = set.toAccountFilter();
    const sub = await subscribe(
      request({
        accounts: { tracked: { ...cuckoo, account: [listed.toBase58()] } },
        commitment: CommitmentLevel.PROCESSED,
      }),
    );
    const everyone = [...members, ...outsiders, listed];
    for (let i = 0; i < everyone.length; i += 20) {
      const ixs = everyone
        .slice(i, i + 20)
        .map((toPubkey) =>
          SystemProgram.transfer({ fromPubkey: chain.node.faucet.publicKey, toPubkey, lamports: 1_000_000n }),
        );
      expect(chain.node.submitInstructions(ixs, chain.node.faucet).err).toBeNull();
    }
    await waitFor("member updates", () => sub.updates.filter((u) => u.account).length >= members.length + 1);
    chain.node.advanceSlots(1);
    await new Promise((r) => setTimeout(r, 100));
    const seen = new Set(sub.updates.filter((u) => u.account).map((u) => bs58.encode(u.account!.account!.pubkey)));
    for (const k of [...members, listed]) expect(seen.has(k.toBase58())).toBe(true);
    for (const k of outsiders) expect(seen.has(k.toBase58())).toBe(false);
    // the transfers' payer is not in the set either
    expect(seen.has(chain.node.faucet.publicKey.toBase58())).toBe(false);
    expect(seen.size).toBe(members.length + 1);
  }, 60_000);

  test("a cuckoo transaction filter selects transactions touching an account in its set", async () => {
    const member = fixedKey(7).publicKey;
    const set = new CompressedAccountFilterSet(10);
    set.insert(member.toBase58());
    const sub = await subscribe(request({ transactions: { t: set.toTransactionFilter() } }));
    const hit = await transfer(member, 1_000_000n);
    const miss = await transfer(fixedKey(8).publicKey, 1_000_000n);
    await waitFor("the member's transaction", () => sub.updates.some((u) => u.transaction));
    chain.node.advanceSlots(1);
    await new Promise((r) => setTimeout(r, 100));
    const sigs = sub.updates
      .filter((u) => u.transaction)
      .map((u) => bs58.encode(u.transaction!.transaction!.signature));
    expect(sigs).toEqual([hit]);
    expect(sigs).not.toContain(miss);
  }, 60_000);

  test("nonemptyTxnSignature selects writes by whether a transaction made them", async () => {
    const watched = Keypair.generate().publicKey;
    const filter = (nonemptyTxnSignature: boolean) => ({
      account: [watched.toBase58()],
      owner: [],
      filters: [],
      nonemptyTxnSignature,
    });
    const sub = await subscribe(request({ accounts: { bySigned: filter(true), byUnsigned: filter(false) } }));
    // every write on the local chain is a transaction's (no startup snapshot, no direct writes streamed)
    const signature = await transfer(watched, 1_000_000n);
    await waitFor("the update", () => sub.updates.some((u) => u.account));
    chain.node.advanceSlots(1);
    await new Promise((r) => setTimeout(r, 100));
    const updates = sub.updates.filter((u) => u.account);
    expect(updates.map((u) => u.filters)).toEqual([["bySigned"]]);
    expect(bs58.encode(updates[0]!.account!.account!.txnSignature!)).toBe(signature);
  }, 60_000);

  test("tokenAccounts matches a transaction by the owners of the token accounts it moves", async () => {
    const token = chain.launch.createToken({ name: "T", symbol: "T", uri: "u", creator: Keypair.generate().publicKey });
    expect(token.err).toBeNull();
    const [alice, bob] = [Keypair.generate(), Keypair.generate()];
    for (const k of [alice, bob]) {
      chain.node.fund(k.publicKey, 10_000_000_000n);
      expect(chain.launch.buy({ mint: token.mint, buyer: k, solInLamports: 100_000_000n }).err).toBeNull();
    }
    chain.node.advanceSlots(1);
    const mint = new PublicKey(token.mint);
    const [fromAta, toAta] = [alice, bob].map((k) => getAssociatedTokenAddressSync(mint, k.publicKey));
    const byOwner = (tokenAccounts?: TokenAccountExpansionControlFlag) => ({
      accountInclude: [bob.publicKey.toBase58()],
      accountExclude: [],
      accountRequired: [],
      ...(tokenAccounts === undefined ? {} : { tokenAccounts }),
    });
    const sub = await subscribe(
      request({
        transactions: {
          plain: byOwner(),
          all: byOwner(TokenAccountExpansionControlFlag.ALL),
          changed: byOwner(TokenAccountExpansionControlFlag.BALANCE_CHANGED),
        },
      }),
    );
    // bob's wallet is not among the transfer's accounts: only his token account is
    const { tx, signature } = await signedTx(
      connection,
      [createTransferInstruction(fromAta!, toAta!, alice.publicKey, 1_000n)],
      alice,
    );
    expect(tx.message.staticAccountKeys.some((k) => k.equals(bob.publicKey))).toBe(false);
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    await waitFor("the transfer", () => sub.updates.some((u) => u.transaction));
    chain.node.advanceSlots(1);
    await new Promise((r) => setTimeout(r, 100));
    const got = sub.updates.filter((u) => u.transaction);
    expect(got).toHaveLength(1);
    expect(bs58.encode(got[0]!.transaction!.transaction!.signature)).toBe(signature);
    expect(got[0]!.filters.sort()).toEqual(["all", "changed"]);
  }, 60_000);

  test("interslotUpdates adds the bank's creation and completion to slot updates", async () => {
    const sub = await subscribe(
      request({
        slots: { plain: { filterByCommitment: false }, inter: { filterByCommitment: false, interslotUpdates: true } },
      }),
    );
    const closed = chain.node.getSlot();
    chain.node.advanceSlots(1);
    await waitFor("slot updates", () => sub.updates.some((u) => u.slot?.status === SlotStatus.SLOT_CREATED_BANK));
    const slots = sub.updates.filter((u) => u.slot).map((u) => [u.slot!.slot, u.slot!.status, u.filters.sort().join()]);
    expect(slots).toEqual([
      [closed.toString(), SlotStatus.SLOT_COMPLETED, "inter"],
      [closed.toString(), SlotStatus.SLOT_PROCESSED, "inter,plain"],
      [closed.toString(), SlotStatus.SLOT_CONFIRMED, "inter,plain"],
      [(closed - 32n).toString(), SlotStatus.SLOT_FINALIZED, "inter,plain"],
      [(closed + 1n).toString(), SlotStatus.SLOT_CREATED_BANK, "inter"],
    ]);
  }, 30_000);
});

// ---------------------------------------------------------------- a separate process, its clock running

describe("the chain as a separate process", () => {
  let child: ChainProcess | null = null;
  afterAll(async () => {
    await child?.stop();
  });

  test("while the clock moves, processed stays ahead of finalized and all three agree with the JSON-RPC", async () => {
    child = await startChainProcess(["--slot-ms", "40"]);
    const { rpcUrl, grpcUrl } = child;
    const client = await connectedClient(grpcUrl);
    const meta = await subscribe(request({ blocksMeta: { m: {} }, commitment: CommitmentLevel.CONFIRMED }), grpcUrl);

    const start = BigInt((await client.getSlot(CommitmentLevel.PROCESSED)).slot);
    const agreed = { processed: 0, confirmed: 0, finalized: 0 };
    for (let i = 0; i < 80 && Math.min(...Object.values(agreed)) < 2; i++) {
      const [p, f] = await Promise.all([
        client.getSlot(CommitmentLevel.PROCESSED),
        client.getSlot(CommitmentLevel.FINALIZED),
      ]);
      expect(BigInt(p.slot)).toBeGreaterThan(BigInt(f.slot));
      // the clock may tick between two calls: compare only answers the same slot brackets
      for (const [level, name] of LEVELS) {
        const before = await rpc<number>(rpcUrl, "getSlot", [{ commitment: name }]);
        const viaGrpc = await client.getLatestBlockhash(level);
        const viaRpc = await rpc<{ context: { slot: number }; value: { blockhash: string } }>(
          rpcUrl,
          "getLatestBlockhash",
          [{ commitment: name }],
        );
        const after = await rpc<number>(rpcUrl, "getSlot", [{ commitment: name }]);
        expect(BigInt(viaGrpc.slot)).toBeGreaterThanOrEqual(BigInt(before));
        expect(BigInt(viaGrpc.slot)).toBeLessThanOrEqual(BigInt(after));
        if (before === after && viaRpc.context.slot === before) {
          expect([viaGrpc.slot, viaGrpc.blockhash]).toEqual([before.toString(), viaRpc.value.blockhash]);
          agreed[name]++;
        }
      }
    }
    expect(Math.min(...Object.values(agreed))).toBeGreaterThan(0);
    // The clock runs on its own: the slot moves on (a loaded machine may take longer than the
    // loop above, which can agree within one slot).
    let now = start;
    for (let i = 0; i < 500 && now <= start; i++) {
      await Bun.sleep(20);
      now = BigInt((await client.getSlot(CommitmentLevel.PROCESSED)).slot);
    }
    expect(now).toBeGreaterThan(start);

    await waitFor("block metas", () => meta.updates.filter((u) => u.blockMeta).length >= 4);
    const metas = meta.updates.filter((u) => u.blockMeta).map((u) => u.blockMeta!);
    for (let i = 1; i < metas.length; i++) expect(metas[i]!.parentBlockhash).toBe(metas[i - 1]!.blockhash);
    const last = metas.at(-1)!;
    const block = await rpc<{ blockhash: string; previousBlockhash: string }>(rpcUrl, "getBlock", [
      Number(last.slot),
      { commitment: "confirmed", transactionDetails: "none", rewards: false },
    ]);
    expect([block.blockhash, block.previousBlockhash]).toEqual([last.blockhash, last.parentBlockhash]);
  }, 60_000);
});
