/**
 * A Yellowstone (Geyser) gRPC server for the local node, answering as upstream
 * (rpcpool/yellowstone-grpc) does: `Subscribe` (accounts, transactions, transaction statuses,
 * slots, blocks, blocks meta; cuckoo filters; commitment levels; `fromSlot` replay; ping/pong),
 * plus `Ping`, `GetLatestBlockhash`, `GetBlockHeight`, `GetSlot`, `IsBlockhashValid` (at a
 * commitment), `GetVersion`, `SubscribeReplayInfo`. Entry subscriptions, and any request field
 * the server does not read, are refused rather than ignored.
 *
 * Messages are the ts-proto definitions shipped in `@triton-one/yellowstone-grpc`, served by
 * `@grpc/grpc-js` over plaintext HTTP/2. Bun's node:http2 serves it well enough for the napi
 * (tonic) client, so this runs in the service process; it runs under Node unchanged too.
 *
 * Stream messages are batched: everything written to a subscriber in one synchronous pass (a
 * slot's updates at confirmed, a transaction's at processed, a replay) leaves as one write.
 * grpc-js writes each message as its own HTTP/2 DATA frame, and the napi client's h2 answers a
 * flood of small DATA frames (about 1,000 account updates a slot) with GOAWAY
 * "too_many_data_frames"; one write per batch makes a few full-size frames instead.
 */
import * as grpc from "@grpc/grpc-js";
import { BaseServerInterceptingCall } from "@grpc/grpc-js/build/src/server-interceptors.js";
import {
  SubscribeRequest,
  SubscribeUpdate,
  PingRequest,
  PongResponse,
  GetLatestBlockhashRequest,
  GetLatestBlockhashResponse,
  GetBlockHeightRequest,
  GetBlockHeightResponse,
  GetSlotRequest,
  GetSlotResponse,
  GetVersionRequest,
  GetVersionResponse,
  IsBlockhashValidRequest,
  IsBlockhashValidResponse,
  SubscribeReplayInfoRequest,
  SubscribeReplayInfoResponse,
  CommitmentLevel,
  SlotStatus,
  TokenAccountExpansionControlFlag,
  type CuckooFilter,
  type SubscribeRequestFilterAccounts,
  type SubscribeRequestFilterTransactions,
  type SubscribeUpdateTransactionInfo,
} from "@triton-one/yellowstone-grpc";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import {
  BLOCKHASH_VALID_BLOCKS,
  FINALIZATION_SLOTS,
  type LocalNode,
  type AccountUpdate,
  type TxRecord,
  type TokenBalance,
} from "./node";
import { toBincode } from "./errors";

/** Slots of history kept for `fromSlot` replay and for delivering at confirmed/finalized. */
const RETAIN_SLOTS = 300n;
/** Upper bound on retained events across those slots; the oldest slots go first past it. */
const RETAIN_EVENTS = 200_000;
/** A subscriber this far behind is cut with RESOURCE_EXHAUSTED instead of growing memory. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const SERVER_PING_MS = 15_000;
const MAX_SUBSCRIBERS = 256;
const MAX_FILTERS_PER_KIND = 64;
const MAX_KEYS_PER_FILTER = 10_000;
/** A batch this large is written at once rather than waiting for the end of the pass. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
/** Slots whose opening blockhash is remembered: validity (150 blocks) plus the finalized lag, with room. */
const BLOCKHASH_RECORD_SLOTS = 512;

/** A gRPC status a handler answers with (anything else thrown is INTERNAL). */
class GrpcStatusError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A unary call's commitment as upstream parses it: processed when absent, and any value outside
 * processed / confirmed / finalized refused with UNKNOWN.
 */
function unaryCommitment(requested: CommitmentLevel | undefined): CommitmentLevel {
  const level = requested ?? CommitmentLevel.PROCESSED;
  if (level === CommitmentLevel.PROCESSED || level === CommitmentLevel.CONFIRMED || level === CommitmentLevel.FINALIZED)
    return level;
  throw new GrpcStatusError(grpc.status.UNKNOWN, `failed to create CommitmentLevel from ${level}`);
}

/** gRPC messages already length-prefixed, written to the stream as one chunk. */
class FramedBatch {
  constructor(readonly bytes: Buffer) {}
}

/**
 * grpc-js length-prefixes every message in `serializeMessage`; a FramedBatch is already framed and
 * passes through. Without that hook (another grpc-js version) messages go out one by one.
 */
const batching = (() => {
  const proto = (
    BaseServerInterceptingCall as unknown as {
      prototype?: { serializeMessage?: (v: unknown) => Buffer; [key: symbol]: boolean };
    }
  ).prototype;
  const original = proto?.serializeMessage;
  if (!proto || typeof original !== "function") return false;
  const marker = Symbol.for("local-chain.framed-batch");
  if (!proto[marker]) {
    proto.serializeMessage = function (this: unknown, value: unknown): Buffer {
      return value instanceof FramedBatch ? value.bytes : original.call(this, value);
    };
    proto[marker] = true;
  }
  return true;
})();

type MessageFns<T> = { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T; fromPartial(o: object): T };

function method<Req, Res>(
  path: string,
  req: MessageFns<Req>,
  res: MessageFns<Res>,
  streaming: boolean,
): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/geyser.Geyser/${path}`,
    requestStream: streaming,
    responseStream: streaming,
    requestSerialize: (m: Req) => Buffer.from(req.encode(m).finish()),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (m: Res) => Buffer.from(res.encode(m).finish()),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

/** A request message's fields by number, as this server reads them. */
interface MessageShape {
  name: string;
  fields: Record<number, { name: string; shape?: MessageShape }>;
}

const scalars = (name: string, ...names: string[]): MessageShape => ({
  name,
  fields: Object.fromEntries(names.map((n, i) => [i + 1, { name: n }])),
});
const mapEntry = (value: MessageShape): MessageShape => ({
  name: value.name,
  fields: { 1: { name: "key" }, 2: { name: "value", shape: value } },
});
const cuckooShape = scalars(
  "CuckooFilter",
  "data",
  "bucket_count",
  "entries_per_bucket",
  "fingerprint_bits",
  "hash_seed",
  "hash_algorithm",
);
const transactionsShape: MessageShape = {
  name: "SubscribeRequestFilterTransactions",
  fields: {
    1: { name: "vote" },
    2: { name: "failed" },
    3: { name: "account_include" },
    4: { name: "account_exclude" },
    5: { name: "signature" },
    6: { name: "account_required" },
    7: { name: "cuckoo_account_include", shape: cuckooShape },
    30: { name: "token_accounts" },
  },
};
/**
 * What a SubscribeRequest may carry. The generated decoder drops fields it does not know, and a
 * dropped filter field widens the filter (a dropped cuckoo filter is "every account"), so a field
 * outside this shape refuses the request instead.
 */
const subscribeRequestShape: MessageShape = {
  name: "SubscribeRequest",
  fields: {
    1: {
      name: "accounts",
      shape: mapEntry({
        name: "SubscribeRequestFilterAccounts",
        fields: {
          2: { name: "account" },
          3: { name: "owner" },
          4: {
            name: "filters",
            shape: {
              name: "SubscribeRequestFilterAccountsFilter",
              fields: {
                1: {
                  name: "memcmp",
                  shape: scalars("SubscribeRequestFilterAccountsFilterMemcmp", "offset", "bytes", "base58", "base64"),
                },
                2: { name: "datasize" },
                3: { name: "token_account_state" },
                4: {
                  name: "lamports",
                  shape: scalars("SubscribeRequestFilterAccountsFilterLamports", "eq", "ne", "lt", "gt"),
                },
              },
            },
          },
          5: { name: "nonempty_txn_signature" },
          6: { name: "cuckoo_accounts_filter", shape: cuckooShape },
        },
      }),
    },
    2: {
      name: "slots",
      shape: mapEntry(scalars("SubscribeRequestFilterSlots", "filter_by_commitment", "interslot_updates")),
    },
    3: { name: "transactions", shape: mapEntry(transactionsShape) },
    4: {
      name: "blocks",
      shape: mapEntry({
        name: "SubscribeRequestFilterBlocks",
        fields: {
          1: { name: "account_include" },
          2: { name: "include_transactions" },
          3: { name: "include_accounts" },
          4: { name: "include_entries" },
          5: { name: "cuckoo_account_include", shape: cuckooShape },
        },
      }),
    },
    5: { name: "blocks_meta", shape: mapEntry(scalars("SubscribeRequestFilterBlocksMeta")) },
    6: { name: "commitment" },
    7: { name: "accounts_data_slice", shape: scalars("SubscribeRequestAccountsDataSlice", "offset", "length") },
    8: { name: "entry", shape: mapEntry(scalars("SubscribeRequestFilterEntry")) },
    9: { name: "ping", shape: scalars("SubscribeRequestPing", "id") },
    10: { name: "transactions_status", shape: mapEntry(transactionsShape) },
    11: { name: "from_slot" },
  },
};

/** The first field of `bytes` outside `shape`, as the reason to refuse the request. */
function unreadField(bytes: Uint8Array, shape: MessageShape): string | null {
  let problem: string | null = null;
  forEachField(bytes, (number, wireType, value) => {
    if (problem !== null) return;
    const field = shape.fields[number];
    if (!field) problem = `field ${number} of ${shape.name} is not supported by the local chain`;
    else if (field.shape && wireType === 2 && value instanceof Uint8Array) problem = unreadField(value, field.shape);
  });
  return problem;
}

/** Why a decoded request is refused before its filters are read (a field the decoder dropped). */
const refusedRequests = new WeakMap<SubscribeRequest, string>();

/**
 * ts-proto drops map entries whose value is an empty message, but Yellowstone treats an empty
 * filter ("accounts": {"all": {}}) as "everything". Recover those keys from the raw bytes.
 */
function decodeSubscribeRequest(bytes: Buffer): SubscribeRequest {
  const req = SubscribeRequest.decode(bytes);
  try {
    const problem = unreadField(bytes, subscribeRequestShape);
    if (problem !== null) refusedRequests.set(req, problem);
  } catch {
    refusedRequests.set(req, "malformed request");
  }
  const mapFields: Record<number, keyof SubscribeRequest> = {
    1: "accounts",
    2: "slots",
    3: "transactions",
    10: "transactionsStatus",
    4: "blocks",
    5: "blocksMeta",
    8: "entry",
  };
  const empty: Record<string, () => object> = {
    accounts: () => ({ account: [], owner: [], filters: [] }),
    transactions: () => ({ accountInclude: [], accountExclude: [], accountRequired: [] }),
    transactionsStatus: () => ({ accountInclude: [], accountExclude: [], accountRequired: [] }),
    blocks: () => ({ accountInclude: [] }),
    slots: () => ({}),
    blocksMeta: () => ({}),
    entry: () => ({}),
  };
  try {
    forEachField(bytes, (field, wireType, value) => {
      const name = mapFields[field];
      if (!name || wireType !== 2 || !(value instanceof Uint8Array)) return;
      let key: string | null = null;
      forEachField(value, (f, w, v) => {
        if (f === 1 && w === 2 && v instanceof Uint8Array) key = Buffer.from(v).toString("utf8");
      });
      const map = req[name] as Record<string, object>;
      if (key !== null && !(key in map)) map[key] = empty[name]!();
    });
  } catch {
    // The generated decoder already accepted the bytes; a scan failure only loses empty filters.
  }
  return req;
}

function forEachField(
  buf: Uint8Array,
  fn: (field: number, wireType: number, value: bigint | Uint8Array) => void,
): void {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= buf.length) throw new Error("truncated");
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error("varint too long");
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const field = tag >>> 3,
      wireType = tag & 7;
    if (wireType === 0) fn(field, wireType, varint());
    else if (wireType === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw new Error("truncated");
      fn(field, wireType, buf.subarray(pos, pos + len));
      pos += len;
    } else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else throw new Error("unsupported wire type");
  }
}

interface SlotEvents {
  accounts: AccountUpdate[];
  txs: TxRecord[];
  meta: {
    blockhash: string;
    blockHeight: bigint;
    blockTimeSec: number;
    parentSlot: bigint;
    parentBlockhash: string;
  } | null;
}

interface Subscriber {
  call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>;
  req: SubscribeRequest | null;
  /** the request's account filters with their keys in sets: a slot's thousand updates are matched against them */
  accountFilters: CompiledAccountFilter[];
  commitment: CommitmentLevel;
  closed: boolean;
  /** framed messages of the current pass, not yet written */
  batch: Buffer[];
  batchBytes: number;
  flushQueued: boolean;
  /** bytes handed to grpc-js and not yet passed to HTTP/2 (the stream is in object mode: its writableLength counts messages) */
  unsentBytes: number;
}

export class GeyserServer {
  private server: grpc.Server | null = null;
  private readonly subscribers = new Set<Subscriber>();
  private readonly slots = new Map<bigint, SlotEvents>();
  private retainedEvents = 0;
  /** first slot whose events were dropped from retention; null while everything since genesis is kept */
  private prunedThrough: bigint | null = null;
  /**
   * Each recent slot's blockhash (the chain makes one as a slot opens) and, per blockhash, that
   * slot and its last valid block height: unary calls at confirmed and finalized, and the parents
   * in block meta, answer from here.
   */
  private readonly blockhashOfSlot = new Map<bigint, string>();
  private readonly blockhashes = new Map<string, { slot: bigint; lastValidBlockHeight: bigint }>();
  private unlisten: (() => void) | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  port = 0;

  constructor(private readonly node: LocalNode) {}

  async listen(port: number): Promise<number> {
    const server = new grpc.Server({
      "grpc.max_send_message_length": 64 * 1024 * 1024,
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
    });
    const unary =
      <Req, Res>(fn: (r: Req) => Res) =>
      (call: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>) => {
        try {
          cb(null, fn(call.request));
        } catch (e) {
          if (e instanceof GrpcStatusError) cb({ code: e.code, details: e.message });
          else cb({ code: grpc.status.INTERNAL, details: (e as Error).message });
        }
      };
    const service: grpc.ServiceDefinition = {
      Subscribe: method(
        "Subscribe",
        {
          ...SubscribeRequest,
          decode: (b: Uint8Array) => decodeSubscribeRequest(Buffer.from(b)),
        } as MessageFns<SubscribeRequest>,
        SubscribeUpdate as MessageFns<SubscribeUpdate>,
        true,
      ),
      Ping: method("Ping", PingRequest, PongResponse, false),
      GetLatestBlockhash: method("GetLatestBlockhash", GetLatestBlockhashRequest, GetLatestBlockhashResponse, false),
      GetBlockHeight: method("GetBlockHeight", GetBlockHeightRequest, GetBlockHeightResponse, false),
      GetSlot: method("GetSlot", GetSlotRequest, GetSlotResponse, false),
      GetVersion: method("GetVersion", GetVersionRequest, GetVersionResponse, false),
      IsBlockhashValid: method("IsBlockhashValid", IsBlockhashValidRequest, IsBlockhashValidResponse, false),
      SubscribeReplayInfo: method(
        "SubscribeReplayInfo",
        SubscribeReplayInfoRequest,
        SubscribeReplayInfoResponse,
        false,
      ),
    };
    server.addService(service, {
      Subscribe: (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) => this.subscribe(call),
      Ping: unary((r: PingRequest) => ({ count: r.count })),
      GetLatestBlockhash: unary((r: GetLatestBlockhashRequest) => {
        const commitment = unaryCommitment(r.commitment);
        const slot = this.commitmentSlot(commitment);
        const { blockhash, lastValidBlockHeight } = this.blockhashAt(slot);
        return { slot: slot.toString(), blockhash, lastValidBlockHeight: lastValidBlockHeight.toString() };
      }),
      GetBlockHeight: unary((r: GetBlockHeightRequest) => ({
        blockHeight: this.node.blockHeightAt(this.commitmentSlot(unaryCommitment(r.commitment))).toString(),
      })),
      GetSlot: unary((r: GetSlotRequest) => ({
        slot: this.commitmentSlot(unaryCommitment(r.commitment)).toString(),
      })),
      GetVersion: unary(() => ({
        version: JSON.stringify({ package: "local-chain", version: "7.0.1", solana: "2.2.0" }),
      })),
      IsBlockhashValid: unary((r: IsBlockhashValidRequest) => {
        const commitment = unaryCommitment(r.commitment);
        const slot = this.commitmentSlot(commitment);
        return { slot: slot.toString(), valid: this.blockhashValidAt(r.blockhash, slot) };
      }),
      SubscribeReplayInfo: unary(() => ({
        firstAvailable: (this.prunedThrough !== null
          ? this.prunedThrough + 1n
          : (this.oldestSlot() ?? this.node.getSlot())
        ).toString(),
      })),
    });
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    this.server = server;
    this.recordRecentBlockhashes();
    this.unlisten = this.node.addListener({
      onAccounts: (u) => this.onAccounts(u),
      onTransaction: (r) => this.onTransaction(r),
      onSlot: (e) => this.onSlot(e),
    });
    this.pingTimer = setInterval(() => {
      for (const s of this.subscribers) this.write(s, { filters: [], ping: {} });
    }, SERVER_PING_MS);
    this.pingTimer.unref?.();
    return this.port;
  }

  /** Ends every open Subscribe stream with UNAVAILABLE, as a provider restart would. */
  cutStreams(): number {
    const n = this.subscribers.size;
    for (const s of [...this.subscribers]) this.drop(s, grpc.status.UNAVAILABLE, "stream cut (local chain fault)");
    return n;
  }

  subscriberCount(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    this.unlisten?.();
    this.unlisten = null;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.cutStreams();
    const server = this.server;
    this.server = null;
    if (!server) return;
    // Clients keep HTTP/2 connections open indefinitely; a graceful shutdown would wait on them.
    server.forceShutdown();
  }

  // ------------------------------------------------------------------ commitment

  /**
   * The slot a commitment level stands at: processed is the open slot (the JSON-RPC's too),
   * confirmed the slot closed last (the newest SLOT_CONFIRMED on the stream), finalized
   * FINALIZATION_SLOTS behind that (the newest SLOT_FINALIZED, and the JSON-RPC's finalized slot).
   */
  private commitmentSlot(commitment: CommitmentLevel): bigint {
    const open = this.node.getSlot();
    const back =
      commitment === CommitmentLevel.PROCESSED
        ? 0n
        : commitment === CommitmentLevel.CONFIRMED
          ? 1n
          : 1n + FINALIZATION_SLOTS;
    return open > back ? open - back : 0n;
  }

  /**
   * The blockhash of `slot`'s block: the newest one while the slot was open (the chain makes one
   * as each slot opens, getBlock's `blockhash`), valid for BLOCKHASH_VALID_BLOCKS from its height.
   */
  private blockhashAt(slot: bigint): { blockhash: string; lastValidBlockHeight: bigint } {
    if (slot >= this.node.getSlot()) return this.node.getLatestBlockhash();
    const blockhash = this.blockhashOfSlot.get(slot);
    const known = blockhash === undefined ? undefined : this.blockhashes.get(blockhash);
    return known
      ? { blockhash: blockhash!, lastValidBlockHeight: known.lastValidBlockHeight }
      : this.node.blockhashAt(slot);
  }

  /** Whether the chain as it was at `slot` would take `blockhash`: it had made it, and it had not expired. */
  private blockhashValidAt(blockhash: string, slot: bigint): boolean {
    if (slot >= this.node.getSlot()) return this.node.isBlockhashValid(blockhash);
    const known = this.blockhashes.get(blockhash);
    return known !== undefined && known.slot <= slot && this.node.blockHeightAt(slot) <= known.lastValidBlockHeight;
  }

  private noteBlockhash(slot: bigint, blockhash: string, lastValidBlockHeight: bigint): void {
    this.blockhashOfSlot.set(slot, blockhash);
    this.blockhashes.set(blockhash, { slot, lastValidBlockHeight });
    while (this.blockhashOfSlot.size > BLOCKHASH_RECORD_SLOTS) {
      const [oldest, hash] = this.blockhashOfSlot.entries().next().value!;
      this.blockhashOfSlot.delete(oldest);
      this.blockhashes.delete(hash);
    }
  }

  /** The blockhashes the node still remembers, by the slot each opened, oldest first. */
  private recordRecentBlockhashes(): void {
    const open = this.node.getSlot();
    const reach = BLOCKHASH_VALID_BLOCKS + FINALIZATION_SLOTS + 2n;
    for (let slot = open > reach ? open - reach : 0n; slot <= open; slot++) {
      const at = this.node.blockhashAt(slot);
      // blockhashAt answers the newest one for a slot it no longer remembers
      if (at.lastValidBlockHeight === this.node.blockHeightAt(slot) + BLOCKHASH_VALID_BLOCKS)
        this.noteBlockhash(slot, at.blockhash, at.lastValidBlockHeight);
    }
  }

  // ------------------------------------------------------------------ history

  private slotEvents(slot: bigint): SlotEvents {
    let e = this.slots.get(slot);
    if (!e) {
      e = { accounts: [], txs: [], meta: null };
      this.slots.set(slot, e);
    }
    return e;
  }

  private oldestSlot(): bigint | null {
    const first = this.slots.keys().next();
    return first.done ? null : first.value;
  }

  private prune(): void {
    const newest = this.node.getSlot();
    for (const [slot, e] of this.slots) {
      if (slot + RETAIN_SLOTS >= newest && this.retainedEvents <= RETAIN_EVENTS) break;
      this.retainedEvents -= e.accounts.length + e.txs.length;
      this.slots.delete(slot);
      this.prunedThrough = slot;
    }
  }

  private onAccounts(updates: AccountUpdate[]): void {
    if (updates.length === 0) return;
    const e = this.slotEvents(updates[0]!.slot);
    e.accounts.push(...updates);
    this.retainedEvents += updates.length;
    for (const s of this.subscribers) if (s.commitment === CommitmentLevel.PROCESSED) this.sendAccounts(s, updates);
  }

  private onTransaction(record: TxRecord): void {
    this.slotEvents(record.slot).txs.push(record);
    this.retainedEvents += 1;
    for (const s of this.subscribers)
      if (s.commitment === CommitmentLevel.PROCESSED) this.sendTransactions(s, [record]);
    if (this.retainedEvents > RETAIN_EVENTS) this.prune();
  }

  private onSlot(ev: {
    closed: bigint;
    opened: bigint;
    finalized: bigint | null;
    blockhash: string;
    blockHeight: bigint;
    blockTimeSec: number;
  }): void {
    const latest = this.node.getLatestBlockhash();
    this.noteBlockhash(
      ev.opened,
      ev.blockhash,
      latest.blockhash === ev.blockhash ? latest.lastValidBlockHeight : ev.blockHeight + BLOCKHASH_VALID_BLOCKS,
    );
    const closed = this.slotEvents(ev.closed);
    // One block a slot, none skipped: the parent is the slot before, with the blockhash it opened with.
    closed.meta = {
      blockhash: this.blockhashOfSlot.get(ev.closed) ?? "",
      blockHeight: ev.blockHeight - 1n,
      blockTimeSec: ev.blockTimeSec,
      parentSlot: ev.closed - 1n,
      parentBlockhash: this.blockhashOfSlot.get(ev.closed - 1n) ?? "",
    };
    this.slotEvents(ev.opened);
    // A slot is announced only once all its updates went out: resuming clients (the napi
    // reconnect layer among them) treat an announced slot as delivered.
    const fin = ev.finalized !== null ? this.slots.get(ev.finalized) : undefined;
    for (const s of this.subscribers) {
      if (!s.req) continue;
      if (s.commitment === CommitmentLevel.CONFIRMED) this.sendSlotEvents(s, closed);
      if (s.commitment === CommitmentLevel.FINALIZED && fin) this.sendSlotEvents(s, fin);
      this.sendSlot(s, ev.closed, SlotStatus.SLOT_COMPLETED);
      this.sendSlot(s, ev.closed, SlotStatus.SLOT_PROCESSED);
      this.sendSlot(s, ev.closed, SlotStatus.SLOT_CONFIRMED);
      if (ev.finalized !== null) this.sendSlot(s, ev.finalized, SlotStatus.SLOT_FINALIZED);
      if (s.commitment !== CommitmentLevel.FINALIZED) this.sendBlock(s, ev.closed, closed);
      else if (ev.finalized !== null && fin) this.sendBlock(s, ev.finalized, fin);
      this.sendSlot(s, ev.opened, SlotStatus.SLOT_CREATED_BANK);
    }
    this.prune();
  }

  // ------------------------------------------------------------------ subscribers

  private subscribe(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>): void {
    const sub: Subscriber = {
      call,
      req: null,
      accountFilters: [],
      commitment: CommitmentLevel.PROCESSED,
      closed: false,
      batch: [],
      batchBytes: 0,
      flushQueued: false,
      unsentBytes: 0,
    };
    if (this.subscribers.size >= MAX_SUBSCRIBERS) {
      call.emit("error", {
        code: grpc.status.RESOURCE_EXHAUSTED,
        details: "too many subscribers",
        metadata: new grpc.Metadata(),
      });
      return;
    }
    this.subscribers.add(sub);
    // tonic resolves the client's subscribe() only once response headers arrive; grpc-js would
    // hold them until the first message, which may be a while on a quiet chain.
    call.sendMetadata(new grpc.Metadata());
    call.on("data", (req: SubscribeRequest) => this.onRequest(sub, req));
    call.on("end", () => this.drop(sub, grpc.status.OK, ""));
    call.on("error", () => this.drop(sub, grpc.status.CANCELLED, ""));
    call.on("cancelled", () => this.drop(sub, grpc.status.CANCELLED, ""));
    call.on("close", () => this.subscribers.delete(sub));
  }

  private onRequest(sub: Subscriber, req: SubscribeRequest): void {
    if (req.ping) this.write(sub, { filters: [], pong: { id: req.ping.id } });
    const hasFilters = [
      req.accounts,
      req.slots,
      req.transactions,
      req.transactionsStatus,
      req.blocks,
      req.blocksMeta,
      req.entry,
    ].some((m) => Object.keys(m).length > 0);
    // A request that only pings keeps the current filters, as Yellowstone does.
    if (req.ping && !hasFilters && sub.req) return;
    // Upstream's wording: every refusal of a request is "failed to create filter: <why>".
    const problem = refusedRequests.get(req) ?? validateRequest(req);
    if (problem !== null) {
      this.drop(sub, grpc.status.INVALID_ARGUMENT, `failed to create filter: ${problem}`);
      return;
    }
    const commitment = req.commitment ?? CommitmentLevel.PROCESSED;
    sub.req = req;
    sub.accountFilters = Object.entries(req.accounts).map(([name, filter]) => ({
      name,
      filter,
      accounts: new Set(filter.account),
      owners: new Set(filter.owner),
      cuckoo: filter.cuckooAccountsFilter ? cuckooSet(filter.cuckooAccountsFilter) : null,
    }));
    sub.commitment = commitment;
    if (req.fromSlot !== undefined) {
      const from = BigInt(req.fromSlot);
      // Slots before the chain's first one never existed; only slots dropped from retention are lost.
      if (this.prunedThrough !== null && from <= this.prunedThrough) {
        this.drop(
          sub,
          grpc.status.INVALID_ARGUMENT,
          `broadcast from ${from} is not available, last available: ${this.prunedThrough + 1n}`,
        );
        return;
      }
      for (const [slot, events] of this.slots) {
        if (slot < from) continue;
        const reached = this.node.commitmentOf(slot);
        const ok =
          commitment === CommitmentLevel.PROCESSED ||
          (commitment === CommitmentLevel.CONFIRMED && reached !== "processed") ||
          (commitment === CommitmentLevel.FINALIZED && reached === "finalized");
        if (!ok) continue;
        // Replay a slot as it went out live: its updates, then its status and its block meta.
        this.sendSlotEvents(sub, events);
        if (reached !== "processed") {
          this.sendSlot(
            sub,
            slot,
            reached === "finalized" && commitment === CommitmentLevel.FINALIZED
              ? SlotStatus.SLOT_FINALIZED
              : SlotStatus.SLOT_CONFIRMED,
          );
          this.sendBlock(sub, slot, events);
        }
      }
    }
  }

  private drop(sub: Subscriber, code: grpc.status, details: string): void {
    if (sub.closed) return;
    sub.closed = true;
    this.subscribers.delete(sub);
    try {
      // grpc-js turns an 'error' event into the call's final status (see ServerDuplexStreamImpl).
      if (code === grpc.status.OK) {
        this.flush(sub, true);
        sub.call.end();
      } else sub.call.emit("error", { code, details, metadata: new grpc.Metadata() });
    } catch {
      // already gone
    }
  }

  private write(sub: Subscriber, partial: Partial<SubscribeUpdate>): void {
    if (sub.closed) return;
    const message = SubscribeUpdate.fromPartial({ ...partial, createdAt: new Date() });
    if (!batching) {
      if (this.lagging(sub)) return;
      sub.call.write(message);
      return;
    }
    const payload = SubscribeUpdate.encode(message).finish();
    const framed = Buffer.allocUnsafe(payload.length + 5);
    framed.writeUInt8(0, 0);
    framed.writeUInt32BE(payload.length, 1);
    framed.set(payload, 5);
    sub.batch.push(framed);
    sub.batchBytes += framed.length;
    if (sub.batchBytes >= MAX_BATCH_BYTES) this.flush(sub, true);
    else if (!sub.flushQueued) {
      sub.flushQueued = true;
      // The end of the current synchronous pass: a slot's updates, a transaction's, a replay.
      queueMicrotask(() => this.flush(sub, false));
    }
  }

  private flush(sub: Subscriber, early: boolean): void {
    if (!early) sub.flushQueued = false;
    if (sub.closed || sub.batch.length === 0) return;
    const bytes = sub.batch.length === 1 ? sub.batch[0]! : Buffer.concat(sub.batch, sub.batchBytes);
    sub.batch = [];
    sub.batchBytes = 0;
    if (this.lagging(sub)) return;
    sub.unsentBytes += bytes.length;
    sub.call.write(new FramedBatch(bytes) as unknown as SubscribeUpdate, () => {
      sub.unsentBytes -= bytes.length;
    });
  }

  private lagging(sub: Subscriber): boolean {
    if (sub.unsentBytes <= MAX_BUFFERED_BYTES && sub.call.writableLength <= MAX_BUFFERED_BYTES) return false;
    this.drop(sub, grpc.status.RESOURCE_EXHAUSTED, "lagged: subscriber too slow");
    return true;
  }

  private sendSlotEvents(sub: Subscriber, events: SlotEvents): void {
    this.sendAccounts(sub, events.accounts);
    this.sendTransactions(sub, events.txs);
  }

  private sendAccounts(sub: Subscriber, updates: AccountUpdate[]): void {
    const req = sub.req;
    if (!req) return;
    if (sub.accountFilters.length === 0) return;
    for (const u of updates) {
      const pubkey = u.pubkey.toBase58();
      const owner = u.owner.toBase58();
      const filters = sub.accountFilters.filter((c) => accountMatches(c, pubkey, owner, u)).map((c) => c.name);
      if (filters.length === 0) continue;
      this.write(sub, {
        filters,
        account: { account: accountInfo(u, req), slot: u.slot.toString(), isStartup: false },
      });
    }
  }

  private sendTransactions(sub: Subscriber, records: TxRecord[]): void {
    const req = sub.req;
    if (!req) return;
    const full = Object.entries(req.transactions);
    const status = Object.entries(req.transactionsStatus);
    if (full.length === 0 && status.length === 0) return;
    for (const r of records) {
      const keys = r.accountKeys.map((k) => k.toBase58());
      const fullNames = full.filter(([, f]) => txMatches(f, r, keys)).map(([n]) => n);
      if (fullNames.length)
        this.write(sub, { filters: fullNames, transaction: { transaction: txInfo(r), slot: r.slot.toString() } });
      const statusNames = status.filter(([, f]) => txMatches(f, r, keys)).map(([n]) => n);
      if (statusNames.length) {
        this.write(sub, {
          filters: statusNames,
          transactionStatus: {
            slot: r.slot.toString(),
            signature: r.tx.signatures[0]!,
            isVote: false,
            index: r.index.toString(),
            err: r.err ? { err: toBincode(r.err) } : undefined,
          },
        });
      }
    }
  }

  private sendSlot(sub: Subscriber, slot: bigint, status: SlotStatus): void {
    const req = sub.req;
    if (!req) return;
    const interslot =
      status !== SlotStatus.SLOT_PROCESSED &&
      status !== SlotStatus.SLOT_CONFIRMED &&
      status !== SlotStatus.SLOT_FINALIZED;
    const names = Object.entries(req.slots)
      .filter(([, f]) => !f.filterByCommitment || slotStatusMatches(status, sub.commitment))
      .filter(([, f]) => !interslot || f.interslotUpdates === true)
      .map(([n]) => n);
    if (names.length === 0) return;
    this.write(sub, { filters: names, slot: { slot: slot.toString(), parent: (slot - 1n).toString(), status } });
  }

  /** A closed slot's block meta, then its block for each blocks filter (the local chain has no entries). */
  private sendBlock(sub: Subscriber, slot: bigint, e: SlotEvents): void {
    const req = sub.req;
    if (!req || !e.meta) return;
    const metaNames = Object.keys(req.blocksMeta);
    const blockFilters = Object.entries(req.blocks);
    if (metaNames.length === 0 && blockFilters.length === 0) return;
    const meta = {
      slot: slot.toString(),
      blockhash: e.meta.blockhash,
      rewards: { rewards: [], numPartitions: undefined },
      blockTime: { timestamp: e.meta.blockTimeSec.toString() },
      blockHeight: { blockHeight: e.meta.blockHeight.toString() },
      parentSlot: e.meta.parentSlot.toString(),
      parentBlockhash: e.meta.parentBlockhash,
      executedTransactionCount: e.txs.length.toString(),
      entriesCount: "0",
    };
    if (metaNames.length) this.write(sub, { filters: metaNames, blockMeta: meta });
    if (blockFilters.length === 0) return;
    // As upstream seals a block: each account once, at its last write in the slot.
    const last = new Map<string, AccountUpdate>();
    for (const u of e.accounts) last.set(u.pubkey.toBase58(), u);
    const accounts = e.accounts.filter((u) => last.get(u.pubkey.toBase58()) === u);
    for (const [name, f] of blockFilters) {
      const include = new Set(f.accountInclude);
      const cuckoo = f.cuckooAccountInclude ? cuckooSet(f.cuckooAccountInclude) : null;
      const selects = (keys: PublicKey[]) =>
        (include.size === 0 && !cuckoo) || keys.some((k) => include.has(k.toBase58()) || cuckoo?.contains(k.toBytes()));
      this.write(sub, {
        filters: [name],
        block: {
          ...meta,
          transactions: f.includeTransactions === false ? [] : e.txs.filter((r) => selects(r.accountKeys)).map(txInfo),
          updatedAccountCount: accounts.length.toString(),
          accounts:
            f.includeAccounts === true
              ? accounts.filter((u) => selects([u.pubkey])).map((u) => accountInfo(u, req))
              : [],
          entries: [],
        },
      });
    }
  }
}

/** Why upstream would refuse the request's filters, in its words; null when they are fine. */
function validateRequest(req: SubscribeRequest): string | null {
  // The local chain makes no entries: an entry subscription would wait forever.
  if (Object.keys(req.entry).length) return "entry subscriptions are not supported by the local chain";
  const c = req.commitment;
  if (
    c !== undefined &&
    c !== CommitmentLevel.PROCESSED &&
    c !== CommitmentLevel.CONFIRMED &&
    c !== CommitmentLevel.FINALIZED
  )
    return `failed to create CommitmentLevel from ${c}`;
  const tooMany = `Max amount of filters/data_slices reached, only ${MAX_FILTERS_PER_KIND} allowed`;
  for (const kind of ["accounts", "transactions", "transactionsStatus", "slots", "blocks", "blocksMeta"] as const) {
    if (Object.keys(req[kind]).length > MAX_FILTERS_PER_KIND) return tooMany;
  }
  const tooManyKeys = `Max amount of Pubkeys reached, only ${MAX_KEYS_PER_FILTER} allowed`;
  for (const f of Object.values(req.accounts)) {
    if (f.account.length > MAX_KEYS_PER_FILTER || f.owner.length > MAX_KEYS_PER_FILTER) return tooManyKeys;
    for (const k of [...f.account, ...f.owner]) {
      const bad = pubkeyProblem(k);
      if (bad) return bad;
    }
    const bad = accountsStateProblem(f.filters);
    if (bad) return bad;
  }
  for (const f of [...Object.values(req.transactions), ...Object.values(req.transactionsStatus)]) {
    const lists = [f.accountInclude, f.accountExclude, f.accountRequired];
    if (lists.some((l) => l.length > MAX_KEYS_PER_FILTER)) return tooManyKeys;
    for (const k of lists.flat()) {
      const bad = pubkeyProblem(k);
      if (bad) return bad;
    }
    if (f.signature !== undefined) {
      let bytes: Uint8Array;
      try {
        bytes = bs58.decode(f.signature);
      } catch {
        return "failed to decode string to signature";
      }
      if (bytes.length !== 64) return "string decoded to wrong size for signature";
    }
    const mode = f.tokenAccounts;
    if (
      mode !== undefined &&
      mode !== TokenAccountExpansionControlFlag.ALL &&
      mode !== TokenAccountExpansionControlFlag.BALANCE_CHANGED
    )
      return `invalid token_accounts mode value ${mode}; expected ALL (0) or BALANCE_CHANGED (1)`;
  }
  for (const f of Object.values(req.blocks)) {
    if (f.accountInclude.length > MAX_KEYS_PER_FILTER) return tooManyKeys;
    for (const k of f.accountInclude) {
      const bad = pubkeyProblem(k);
      if (bad) return bad;
    }
    // upstream's wording for an include its limits disallow
    if (f.includeEntries === true) return "`include_entries` is not allowed";
  }
  if (req.accountsDataSlice.length > MAX_FILTERS_PER_KIND) return tooMany;
  const slices = req.accountsDataSlice.map((s) => ({
    start: BigInt(s.offset),
    end: BigInt(s.offset) + BigInt(s.length),
  }));
  for (let i = 0; i < slices.length; i++) {
    // upstream's own message already starts with "failed to create filter: "
    if (slices.slice(i + 1).some((b) => slices[i]!.start > b.start))
      return "failed to create filter: data slices out of order";
    if (slices.slice(0, i).some((b) => slices[i]!.start < b.end))
      return "failed to create filter: data slices overlapped";
  }
  return null;
}

/** Upstream's account data filters: at most four, each one kind, within its data limits. */
function accountsStateProblem(filters: SubscribeRequestFilterAccounts["filters"]): string | null {
  if (filters.length > 4) return "Too many filters provided; max 4";
  let datasize = false;
  for (const f of filters) {
    if (f.memcmp) {
      const m = f.memcmp;
      let data: Uint8Array;
      if (m.bytes !== undefined) data = m.bytes;
      else if (m.base58 !== undefined) {
        if (m.base58.length > 175) return "data too large";
        try {
          data = bs58.decode(m.base58);
        } catch {
          return "invalid base58";
        }
      } else if (m.base64 !== undefined) {
        if (m.base64.length > 172) return "data too large";
        if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(m.base64)) return "invalid base64";
        data = Buffer.from(m.base64, "base64");
      } else return "data for memcmp should be defined";
      if (data.length > 128) return "data too large";
    } else if (f.datasize !== undefined) {
      if (datasize) return "datasize used more than once";
      datasize = true;
    } else if (f.tokenAccountState !== undefined) {
      if (!f.tokenAccountState) return "token_account_state only allowed to be true";
    } else if (f.lamports !== undefined) {
      const l = f.lamports;
      if (l.eq === undefined && l.ne === undefined && l.lt === undefined && l.gt === undefined)
        return "cmp for lamports should be defined";
    } else return "filter should be defined";
  }
  return null;
}

/** solana's Pubkey::from_str errors, which upstream passes on. */
function pubkeyProblem(s: string): string | null {
  if (s.length > 44) return "String is the wrong size";
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(s);
  } catch {
    return "Invalid Base58 string";
  }
  return bytes.length === 32 ? null : "String is the wrong size";
}

function slotStatusMatches(status: SlotStatus, commitment: CommitmentLevel): boolean {
  return (
    (status === SlotStatus.SLOT_PROCESSED && commitment === CommitmentLevel.PROCESSED) ||
    (status === SlotStatus.SLOT_CONFIRMED && commitment === CommitmentLevel.CONFIRMED) ||
    (status === SlotStatus.SLOT_FINALIZED && commitment === CommitmentLevel.FINALIZED)
  );
}

interface CompiledAccountFilter {
  name: string;
  filter: SubscribeRequestFilterAccounts;
  accounts: Set<string>;
  owners: Set<string>;
  cuckoo: CuckooSet | null;
}

const U64 = (1n << 64n) - 1n;
const rotl64 = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & U64;

/** SipHash-2-4 of `msg` under keys k0, k1 (Rust's siphasher SipHasher24). */
function sipHash24(k0: bigint, k1: bigint, msg: Uint8Array): bigint {
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & U64;
    v1 = rotl64(v1, 13n) ^ v0;
    v0 = rotl64(v0, 32n);
    v2 = (v2 + v3) & U64;
    v3 = rotl64(v3, 16n) ^ v2;
    v0 = (v0 + v3) & U64;
    v3 = rotl64(v3, 21n) ^ v0;
    v2 = (v2 + v1) & U64;
    v1 = rotl64(v1, 17n) ^ v2;
    v2 = rotl64(v2, 32n);
  };
  const view = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
  const whole = msg.length - (msg.length % 8);
  for (let i = 0; i < whole; i += 8) {
    const m = view.getBigUint64(i, true);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = BigInt(msg.length & 0xff) << 56n;
  for (let i = whole; i < msg.length; i++) last |= BigInt(msg[i]!) << BigInt(8 * (i - whole));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  for (let i = 0; i < 4; i++) round();
  return (v0 ^ v1 ^ v2 ^ v3) & U64;
}

/**
 * Upstream's cuckoo filter of 32-byte keys (yellowstone-grpc-proto's cuckoo module): buckets of four
 * little-endian 16-bit fingerprints; a key is hashed as Rust hashes a [u8; 32] (its length as a
 * u64, then its bytes) with SipHash-2-4 keyed (seed, seed rotated left 32). Like upstream, a hit
 * may be a false positive, and the filter's declared sizes are not trusted over its data.
 */
class CuckooSet {
  private readonly buckets: Uint16Array;
  private readonly mask: bigint;
  private readonly k0: bigint;
  private readonly k1: bigint;
  private readonly altIndex = new Map<number, bigint>();

  constructor(proto: CuckooFilter) {
    const count = Math.floor(proto.data.length / 8);
    this.buckets = new Uint16Array(Math.max(count, 1) * 4);
    const data = Buffer.from(proto.data);
    for (let i = 0; i < count * 4; i++) this.buckets[i] = data.readUInt16LE(i * 2);
    this.mask = BigInt(Math.max(count, 1) - 1);
    this.k0 = BigInt.asUintN(64, BigInt(proto.hashSeed));
    this.k1 = rotl64(this.k0, 32n);
  }

  contains(key: Uint8Array): boolean {
    const msg = new Uint8Array(40);
    msg[0] = key.length;
    msg.set(key, 8);
    const hash = sipHash24(this.k0, this.k1, msg);
    const fingerprint = Number((hash >> 32n) & 0xffffn) || 1;
    const i1 = hash & this.mask;
    let alt = this.altIndex.get(fingerprint);
    if (alt === undefined) {
      alt = sipHash24(this.k0, this.k1, Uint8Array.of(fingerprint & 0xff, fingerprint >> 8)) & this.mask;
      this.altIndex.set(fingerprint, alt);
    }
    return this.bucketHas(Number(i1), fingerprint) || this.bucketHas(Number(i1 ^ alt), fingerprint);
  }

  private bucketHas(bucket: number, fingerprint: number): boolean {
    for (let i = bucket * 4; i < bucket * 4 + 4; i++) if (this.buckets[i] === fingerprint) return true;
    return false;
  }
}

const cuckooSets = new WeakMap<CuckooFilter, CuckooSet>();
function cuckooSet(proto: CuckooFilter): CuckooSet {
  let set = cuckooSets.get(proto);
  if (!set) {
    set = new CuckooSet(proto);
    cuckooSets.set(proto, set);
  }
  return set;
}

/** Yellowstone semantics: fields AND together, values within a field OR; no fields = all accounts. */
function accountMatches(c: CompiledAccountFilter, pubkey: string, owner: string, u: AccountUpdate): boolean {
  const withSignature = c.filter.nonemptyTxnSignature;
  if (withSignature !== undefined && withSignature !== (u.txnSignature !== null)) return false;
  // listed accounts and the cuckoo filter are one set: either may hold the account
  if ((c.accounts.size || c.cuckoo) && !c.accounts.has(pubkey) && !c.cuckoo?.contains(u.pubkey.toBytes())) return false;
  if (c.owners.size && !c.owners.has(owner)) return false;
  for (const df of c.filter.filters) {
    if (df.datasize !== undefined && BigInt(u.data.length) !== BigInt(df.datasize)) return false;
    if (
      df.tokenAccountState &&
      !(u.data.length === 165 && (owner.startsWith("Tokenkeg") || owner.startsWith("Tokenz")))
    )
      return false;
    if (df.memcmp) {
      const bytes =
        df.memcmp.bytes ??
        (df.memcmp.base58 !== undefined
          ? bs58.decode(df.memcmp.base58)
          : df.memcmp.base64 !== undefined
            ? Buffer.from(df.memcmp.base64, "base64")
            : new Uint8Array());
      const off = Number(df.memcmp.offset);
      if (off + bytes.length > u.data.length) return false;
      for (let i = 0; i < bytes.length; i++) if (u.data[off + i] !== bytes[i]) return false;
    }
    if (df.lamports) {
      const l = df.lamports;
      if (l.eq !== undefined && u.lamports !== BigInt(l.eq)) return false;
      if (l.ne !== undefined && u.lamports === BigInt(l.ne)) return false;
      if (l.lt !== undefined && !(u.lamports < BigInt(l.lt))) return false;
      if (l.gt !== undefined && !(u.lamports > BigInt(l.gt))) return false;
    }
  }
  return true;
}

function txMatches(f: SubscribeRequestFilterTransactions, r: TxRecord, accountKeys: string[]): boolean {
  if (f.vote === true) return false; // the local chain has no vote transactions
  if (f.failed !== undefined && f.failed !== (r.err !== null)) return false;
  if (f.signature !== undefined && f.signature !== r.signature) return false;
  const keys = f.tokenAccounts === undefined ? accountKeys : [...accountKeys, ...tokenOwners(r, f.tokenAccounts)];
  if (f.accountInclude.length || f.cuckooAccountInclude) {
    const listed = f.accountInclude.length > 0 && f.accountInclude.some((k) => keys.includes(k));
    const cuckoo = f.cuckooAccountInclude ? cuckooSet(f.cuckooAccountInclude) : null;
    if (!listed && !keys.some((k) => cuckoo?.contains(bs58.decode(k)))) return false;
  }
  if (f.accountExclude.some((k) => keys.includes(k))) return false;
  if (f.accountRequired.length && !f.accountRequired.every((k) => keys.includes(k))) return false;
  return true;
}

/**
 * Upstream's `token_accounts` expansion: owners of the transaction's token balances (ALL), or only
 * of those whose amount changed or whose account closed (BALANCE_CHANGED), match as its accounts do.
 */
function tokenOwners(r: TxRecord, mode: TokenAccountExpansionControlFlag): string[] {
  if (mode === TokenAccountExpansionControlFlag.ALL)
    return [...r.preTokenBalances, ...r.postTokenBalances].map((b) => b.owner);
  const pre = new Map(r.preTokenBalances.map((b) => [b.accountIndex, b]));
  const changed = r.postTokenBalances.filter((b) => pre.get(b.accountIndex)?.amount !== b.amount).map((b) => b.owner);
  const post = new Set(r.postTokenBalances.map((b) => b.accountIndex));
  for (const b of r.preTokenBalances) if (!post.has(b.accountIndex)) changed.push(b.owner);
  return changed;
}

function tokenBalance(b: TokenBalance) {
  const s = b.amount.toString().padStart(b.decimals + 1, "0");
  const whole = s.slice(0, s.length - b.decimals);
  const frac = b.decimals ? s.slice(s.length - b.decimals).replace(/0+$/, "") : "";
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: b.programId,
    uiTokenAmount: {
      uiAmount: Number(uiAmountString),
      decimals: b.decimals,
      amount: b.amount.toString(),
      uiAmountString,
    },
  };
}

function txInfo(r: TxRecord): SubscribeUpdateTransactionInfo {
  const m = r.tx.message;
  return {
    signature: r.tx.signatures[0]!,
    isVote: false,
    index: r.index.toString(),
    transaction: {
      signatures: r.tx.signatures,
      message: {
        header: m.header,
        accountKeys: m.staticAccountKeys.map((k) => k.toBytes()),
        recentBlockhash: new PublicKey(m.recentBlockhash).toBytes(),
        instructions: r.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: Uint8Array.from(ix.accounts),
          data: ix.data,
        })),
        versioned: r.tx.version !== "legacy",
        addressTableLookups: m.addressTableLookups.map((l) => ({
          accountKey: l.accountKey.toBytes(),
          writableIndexes: Uint8Array.from(l.writableIndexes),
          readonlyIndexes: Uint8Array.from(l.readonlyIndexes),
        })),
      },
    },
    meta: {
      err: r.err ? { err: toBincode(r.err) } : undefined,
      fee: r.feeLamports.toString(),
      preBalances: r.preBalances.map(String),
      postBalances: r.postBalances.map(String),
      innerInstructions: r.innerInstructions.map((ii) => ({
        index: ii.index,
        instructions: ii.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: Uint8Array.from(ix.accounts),
          data: ix.data,
          stackHeight: ix.stackHeight ?? undefined,
        })),
      })),
      innerInstructionsNone: false,
      logMessages: r.logs,
      logMessagesNone: false,
      preTokenBalances: r.preTokenBalances.map(tokenBalance),
      postTokenBalances: r.postTokenBalances.map(tokenBalance),
      rewards: [],
      loadedWritableAddresses: r.loadedAddresses.writable.map((k) => k.toBytes()),
      loadedReadonlyAddresses: r.loadedAddresses.readonly.map((k) => k.toBytes()),
      returnData: r.returnData ? { programId: r.returnData.programId.toBytes(), data: r.returnData.data } : undefined,
      returnDataNone: !r.returnData,
      computeUnitsConsumed: r.computeUnits.toString(),
    },
  } as SubscribeUpdateTransactionInfo;
}

function accountInfo(u: AccountUpdate, req: SubscribeRequest) {
  return {
    pubkey: u.pubkey.toBytes(),
    lamports: u.lamports.toString(),
    owner: u.owner.toBytes(),
    executable: u.executable,
    rentEpoch: "18446744073709551615",
    data: req.accountsDataSlice.length
      ? concat(req.accountsDataSlice.map((s) => u.data.subarray(Number(s.offset), Number(s.offset) + Number(s.length))))
      : u.data,
    writeVersion: u.writeVersion.toString(),
    txnSignature: u.txnSignature ?? undefined,
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
