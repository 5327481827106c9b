/**
 * A Yellowstone (Geyser) gRPC server for the local node: `Subscribe` (accounts, transactions,
 * transaction statuses, slots, blocks meta; commitment levels; `fromSlot` replay; ping/pong),
 * plus `Ping`, `GetLatestBlockhash`, `GetBlockHeight`, `GetSlot`, `IsBlockhashValid`,
 * `GetVersion`, `SubscribeReplayInfo`.
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
  type SubscribeRequestFilterAccounts,
  type SubscribeRequestFilterTransactions,
  type SubscribeUpdateTransactionInfo,
} from "@triton-one/yellowstone-grpc";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import type { LocalNode, AccountUpdate, TxRecord, TokenBalance } from "./node";
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

/**
 * ts-proto drops map entries whose value is an empty message, but Yellowstone treats an empty
 * filter ("accounts": {"all": {}}) as "everything". Recover those keys from the raw bytes.
 */
function decodeSubscribeRequest(bytes: Buffer): SubscribeRequest {
  const req = SubscribeRequest.decode(bytes);
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
  meta: { blockhash: string; blockHeight: bigint; blockTimeSec: number; parentSlot: bigint } | null;
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
          cb({ code: grpc.status.INTERNAL, details: (e as Error).message });
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
      GetLatestBlockhash: unary(() => {
        const { blockhash, lastValidBlockHeight } = this.node.getLatestBlockhash();
        return {
          slot: this.node.getSlot().toString(),
          blockhash,
          lastValidBlockHeight: lastValidBlockHeight.toString(),
        };
      }),
      GetBlockHeight: unary(() => ({ blockHeight: this.node.getBlockHeight().toString() })),
      GetSlot: unary(() => ({ slot: this.node.getSlot().toString() })),
      GetVersion: unary(() => ({
        version: JSON.stringify({ package: "local-chain", version: "7.0.1", solana: "2.2.0" }),
      })),
      IsBlockhashValid: unary((r: IsBlockhashValidRequest) => ({
        slot: this.node.getSlot().toString(),
        valid: this.node.isBlockhashValid(r.blockhash),
      })),
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
    const closed = this.slotEvents(ev.closed);
    closed.meta = {
      blockhash: ev.blockhash,
      blockHeight: ev.blockHeight - 1n,
      blockTimeSec: ev.blockTimeSec,
      parentSlot: ev.closed - 1n,
    };
    this.slotEvents(ev.opened);
    // A slot is announced only once all its updates went out: resuming clients (the napi
    // reconnect layer among them) treat an announced slot as delivered.
    const fin = ev.finalized !== null ? this.slots.get(ev.finalized) : undefined;
    for (const s of this.subscribers) {
      if (!s.req) continue;
      if (s.commitment === CommitmentLevel.CONFIRMED) this.sendSlotEvents(s, closed);
      if (s.commitment === CommitmentLevel.FINALIZED && fin) this.sendSlotEvents(s, fin);
      this.sendSlot(s, ev.closed, SlotStatus.SLOT_PROCESSED);
      this.sendSlot(s, ev.closed, SlotStatus.SLOT_CONFIRMED);
      if (ev.finalized !== null) this.sendSlot(s, ev.finalized, SlotStatus.SLOT_FINALIZED);
      if (s.commitment !== CommitmentLevel.FINALIZED) this.sendBlockMeta(s, ev.closed, closed);
      else if (ev.finalized !== null && fin) this.sendBlockMeta(s, ev.finalized, fin);
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
    const problem = validateRequest(req);
    if (problem) {
      this.drop(sub, grpc.status.INVALID_ARGUMENT, problem);
      return;
    }
    const commitment = req.commitment ?? CommitmentLevel.PROCESSED;
    if (
      commitment !== CommitmentLevel.PROCESSED &&
      commitment !== CommitmentLevel.CONFIRMED &&
      commitment !== CommitmentLevel.FINALIZED
    ) {
      this.drop(sub, grpc.status.INVALID_ARGUMENT, "unknown commitment level");
      return;
    }
    sub.req = req;
    sub.accountFilters = Object.entries(req.accounts).map(([name, filter]) => ({
      name,
      filter,
      accounts: new Set(filter.account),
      owners: new Set(filter.owner),
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
          this.sendBlockMeta(sub, slot, events);
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
      let data = u.data;
      if (req.accountsDataSlice.length) {
        data = concat(
          req.accountsDataSlice.map((s) => u.data.subarray(Number(s.offset), Number(s.offset) + Number(s.length))),
        );
      }
      this.write(sub, {
        filters,
        account: {
          account: {
            pubkey: u.pubkey.toBytes(),
            lamports: u.lamports.toString(),
            owner: u.owner.toBytes(),
            executable: u.executable,
            rentEpoch: "18446744073709551615",
            data,
            writeVersion: u.writeVersion.toString(),
            txnSignature: u.txnSignature ?? undefined,
          },
          slot: u.slot.toString(),
          isStartup: false,
        },
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
    const names = Object.entries(req.slots)
      .filter(([, f]) => !f.filterByCommitment || slotStatusMatches(status, sub.commitment))
      .map(([n]) => n);
    if (names.length === 0) return;
    this.write(sub, { filters: names, slot: { slot: slot.toString(), parent: (slot - 1n).toString(), status } });
  }

  private sendBlockMeta(sub: Subscriber, slot: bigint, e: SlotEvents): void {
    const req = sub.req;
    if (!req || !e.meta) return;
    const names = Object.keys(req.blocksMeta);
    if (names.length === 0) return;
    this.write(sub, {
      filters: names,
      blockMeta: {
        slot: slot.toString(),
        blockhash: e.meta.blockhash,
        rewards: { rewards: [], numPartitions: undefined },
        blockTime: { timestamp: e.meta.blockTimeSec.toString() },
        blockHeight: { blockHeight: e.meta.blockHeight.toString() },
        parentSlot: e.meta.parentSlot.toString(),
        parentBlockhash: "",
        executedTransactionCount: e.txs.length.toString(),
        entriesCount: "0",
      },
    });
  }
}

function validateRequest(req: SubscribeRequest): string | null {
  for (const kind of ["accounts", "transactions", "transactionsStatus", "slots", "blocksMeta"] as const) {
    if (Object.keys(req[kind]).length > MAX_FILTERS_PER_KIND) return `too many ${kind} filters`;
  }
  for (const f of Object.values(req.accounts)) {
    if (f.account.length + f.owner.length > MAX_KEYS_PER_FILTER) return "too many keys in an accounts filter";
    for (const k of [...f.account, ...f.owner]) if (!isPubkey(k)) return `invalid pubkey ${k}`;
  }
  for (const f of [...Object.values(req.transactions), ...Object.values(req.transactionsStatus)]) {
    const all = [...f.accountInclude, ...f.accountExclude, ...f.accountRequired];
    if (all.length > MAX_KEYS_PER_FILTER) return "too many keys in a transactions filter";
    for (const k of all) if (!isPubkey(k)) return `invalid pubkey ${k}`;
  }
  if (Object.keys(req.blocks).length || Object.keys(req.entry).length)
    return "blocks and entry subscriptions are not supported by the local chain";
  return null;
}

function isPubkey(s: string): boolean {
  try {
    return bs58.decode(s).length === 32;
  } catch {
    return false;
  }
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
}

/** Yellowstone semantics: fields AND together, values within a field OR; no fields = all accounts. */
function accountMatches(c: CompiledAccountFilter, pubkey: string, owner: string, u: AccountUpdate): boolean {
  if (c.accounts.size && !c.accounts.has(pubkey)) return false;
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

function txMatches(f: SubscribeRequestFilterTransactions, r: TxRecord, keys: string[]): boolean {
  if (f.vote === true) return false; // the local chain has no vote transactions
  if (f.failed !== undefined && f.failed !== (r.err !== null)) return false;
  if (f.signature !== undefined && f.signature !== r.signature) return false;
  if (f.accountInclude.length && !f.accountInclude.some((k) => keys.includes(k))) return false;
  if (f.accountExclude.some((k) => keys.includes(k))) return false;
  if (f.accountRequired.length && !f.accountRequired.every((k) => keys.includes(k))) return false;
  return true;
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
      returnData: undefined,
      returnDataNone: true,
      computeUnitsConsumed: r.computeUnits.toString(),
    },
  } as SubscribeUpdateTransactionInfo;
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
