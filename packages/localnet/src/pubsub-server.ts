/**
 * Solana's PubSub WebSocket API for the local node, on the RPC port + 1 as `solana-test-validator`
 * serves it and as `@solana/web3.js` and `@solana/kit` assume: `signatureSubscribe`,
 * `accountSubscribe`, `programSubscribe`, `logsSubscribe`, `slotSubscribe`, `slotsUpdatesSubscribe`,
 * `blockSubscribe`, `rootSubscribe` and their unsubscribes. Notification shapes and commitment handling follow agave's
 * `rpc_subscriptions`: a `processed` subscription hears a change when the transaction executes, a
 * `confirmed` one when its slot closes, a `finalized` one when the slot is 32 slots deep (the
 * node's own commitment rule, so the WebSocket never runs ahead of getSignatureStatuses).
 *
 * The sockets come from pubsub-transport.ts: Bun's own server under Bun, `ws` under Node.
 */
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import {
  type AccountUpdate,
  type Commitment,
  type LocalNode,
  type TxRecord,
  FINALIZATION_SLOTS,
  isRpcError,
  rpcError,
  rpcErrorBody,
} from "./node";
import { stringifyJson } from "./json";
import { parsedAccountData } from "./parsed";
import { type BrowserAccessOptions, BrowserGuard } from "./browser-guard";
import { type BlockEncodingOptions, encodeBlock, transactionDetailsOf } from "./rpc/blocks";
import { txEncodingOf } from "./rpc/encode";
import { type PubSubSocket, type SocketServer, serveSockets } from "./pubsub-transport";

const MAX_CONNECTIONS = 256;
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1_000;
const MAX_MESSAGE_BYTES = 64 * 1024;
/** A client this far behind is disconnected rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Slots of pending events kept for confirmed/finalized delivery (finality is 32 slots deep). */
const PENDING_SLOTS = 40n;
const MAX_FILTERS = 4;
const SYSTEM_PROGRAM = "11111111111111111111111111111111";

type Encoding = "base58" | "base64" | "jsonParsed";

interface Filter {
  dataSize?: number;
  memcmp?: { offset: number; bytes: Uint8Array };
}

type Sub =
  | { kind: "signature"; id: number; conn: Conn; commitment: Commitment; signature: string; received: boolean }
  | {
      kind: "account";
      id: number;
      conn: Conn;
      commitment: Commitment;
      pubkey: string;
      encoding: Encoding;
      /** agave's last_notified_slot: the slot of the account state the subscriber last heard (or had) */
      lastNotifiedSlot: bigint;
    }
  | {
      kind: "program";
      id: number;
      conn: Conn;
      commitment: Commitment;
      program: string;
      encoding: Encoding;
      filters: Filter[];
    }
  | { kind: "logs"; id: number; conn: Conn; commitment: Commitment; mentions: string | null }
  | { kind: "slot"; id: number; conn: Conn }
  | { kind: "slotsUpdates"; id: number; conn: Conn }
  | {
      kind: "block";
      id: number;
      conn: Conn;
      commitment: Commitment;
      /** mentionsAccountOrProgram's address; null for "all" */
      mentions: string | null;
      options: BlockEncodingOptions;
    }
  | { kind: "root"; id: number; conn: Conn };

interface Conn {
  ws: PubSubSocket | null;
  subs: Map<number, Sub>;
}

/** What happened in one slot that a confirmed or finalized subscriber has yet to hear. */
interface PendingSlot {
  /** last update of each account in the slot: the slot's end state */
  accounts: Map<string, AccountUpdate>;
  txs: TxRecord[];
}

const UNSUBSCRIBE: Record<string, Sub["kind"]> = {
  signatureUnsubscribe: "signature",
  accountUnsubscribe: "account",
  programUnsubscribe: "program",
  logsUnsubscribe: "logs",
  slotUnsubscribe: "slot",
  slotsUpdatesUnsubscribe: "slotsUpdates",
  blockUnsubscribe: "block",
  rootUnsubscribe: "root",
};

export class PubSubServer {
  private server: SocketServer | null = null;
  private readonly conns = new Set<Conn>();
  private nextId = 0;
  private readonly signatureSubs = new Map<string, Set<Sub & { kind: "signature" }>>();
  private readonly accountSubs = new Map<string, Set<Sub & { kind: "account" }>>();
  private readonly programSubs = new Map<string, Set<Sub & { kind: "program" }>>();
  private readonly logsSubs = new Set<Sub & { kind: "logs" }>();
  private readonly slotSubs = new Set<Sub & { kind: "slot" }>();
  private readonly slotsUpdatesSubs = new Set<Sub & { kind: "slotsUpdates" }>();
  private readonly blockSubs = new Set<Sub & { kind: "block" }>();
  private readonly rootSubs = new Set<Sub & { kind: "root" }>();
  private readonly guard: BrowserGuard;
  private readonly pending = new Map<bigint, PendingSlot>();
  private unlisten: (() => void) | null = null;
  port = 0;

  constructor(
    private readonly node: LocalNode,
    private readonly log: (m: string) => void = () => {},
    browser: BrowserAccessOptions = {},
  ) {
    this.guard = new BrowserGuard(browser);
  }

  async listen(port: number): Promise<number> {
    this.server = await serveSockets<Conn>(
      port,
      {
        admit: (host, origin) => {
          // A WebSocket has no CORS: a page on any origin may open one, so the origin is checked here.
          const verdict = this.guard.check(host, origin);
          if (!verdict.ok) return { status: verdict.status, body: verdict.body };
          return this.conns.size >= MAX_CONNECTIONS ? { status: 503, body: "too many connections" } : null;
        },
        open: (socket) => {
          const conn: Conn = { ws: socket, subs: new Map() };
          this.conns.add(conn);
          return conn;
        },
        message: (conn, text) => this.onMessage(conn, text),
        close: (conn) => this.onClose(conn),
      },
      { maxMessageBytes: MAX_MESSAGE_BYTES, maxBufferedBytes: MAX_BUFFERED_BYTES },
    );
    this.port = this.server.port;
    this.unlisten = this.node.addListener({
      onAccounts: (u) => this.onAccounts(u),
      onTransaction: (r) => this.onTransaction(r),
      onSlot: (e) => this.onSlot(e),
    });
    return this.port;
  }

  async close(): Promise<void> {
    this.unlisten?.();
    this.unlisten = null;
    for (const c of [...this.conns]) c.ws?.close(1001, "server shutting down");
    const server = this.server;
    this.server = null;
    await server?.stop();
  }

  connectionCount(): number {
    return this.conns.size;
  }

  // ------------------------------------------------------------------ requests

  private onMessage(conn: Conn, text: string): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.send(conn, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
      return;
    }
    const calls = Array.isArray(body) ? body.slice(0, 100) : [body];
    const answers: unknown[] = [];
    const after: (() => void)[] = [];
    for (const c of calls) {
      const answer = this.call(conn, c, after);
      if (answer !== undefined) answers.push(answer);
    }
    if (Array.isArray(body)) {
      if (answers.length) this.send(conn, answers);
    } else if (answers.length) this.send(conn, answers[0]);
    // Notifications owed at once (a signature already at the asked commitment) follow the answer.
    for (const f of after) f();
  }

  private call(conn: Conn, c: unknown, after: (() => void)[]): unknown {
    const { id, method, params } = (c ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    const p = Array.isArray(params) ? params : [];
    try {
      if (typeof method !== "string") throw rpcError(-32600, "Invalid request");
      // kit's keep-alive pings carry no id: a notification, so no answer.
      if (id === undefined && method === "ping") return undefined;
      const unsubscribeKind = UNSUBSCRIBE[method];
      if (unsubscribeKind)
        return { jsonrpc: "2.0", result: this.unsubscribe(conn, unsubscribeKind, p[0]), id: id ?? null };
      if (conn.subs.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION)
        throw rpcError(-32602, "Invalid params: too many subscriptions on this connection");
      const sub = this.subscribe(conn, method, p, after);
      return { jsonrpc: "2.0", result: sub.id, id: id ?? null };
    } catch (e) {
      if (isRpcError(e)) return { jsonrpc: "2.0", error: rpcErrorBody(e), id: id ?? null };
      this.log(`pubsub ${String(method)} failed: ${(e as Error).stack ?? e}`);
      return { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: id ?? null };
    }
  }

  private subscribe(conn: Conn, method: string, p: unknown[], after: (() => void)[]): Sub {
    const id = ++this.nextId;
    let sub: Sub;
    switch (method) {
      case "signatureSubscribe": {
        const signatureSub = signatureSubOf(conn, id, p);
        sub = signatureSub;
        if (this.notifiedAtOnce(signatureSub, after)) return sub;
        indexAdd(this.signatureSubs, signatureSub.signature, signatureSub);
        break;
      }
      case "accountSubscribe": {
        const pubkey = pubkeyParam(p[0]);
        const cfg = configOf(p[1]);
        const commitment = commitmentOf(cfg);
        const lastNotifiedSlot = this.modifiedSlotAt(pubkey, this.levelSlot(commitment));
        sub = { kind: "account", id, conn, commitment, pubkey, encoding: encodingOf(cfg), lastNotifiedSlot };
        indexAdd(this.accountSubs, pubkey, sub);
        break;
      }
      case "programSubscribe": {
        const program = pubkeyParam(p[0]);
        const cfg = configOf(p[1]);
        sub = {
          kind: "program",
          id,
          conn,
          commitment: commitmentOf(cfg),
          program,
          encoding: encodingOf(cfg),
          filters: filtersOf(cfg.filters),
        };
        indexAdd(this.programSubs, program, sub);
        break;
      }
      case "logsSubscribe": {
        const cfg = configOf(p[1]);
        sub = { kind: "logs", id, conn, commitment: commitmentOf(cfg), mentions: logsFilterOf(p[0]) };
        this.logsSubs.add(sub);
        break;
      }
      case "slotSubscribe":
        sub = { kind: "slot", id, conn };
        this.slotSubs.add(sub);
        break;
      case "slotsUpdatesSubscribe":
        sub = { kind: "slotsUpdates", id, conn };
        this.slotsUpdatesSubs.add(sub);
        break;
      case "blockSubscribe":
        sub = { kind: "block", id, conn, ...blockParamsOf(p) };
        this.blockSubs.add(sub);
        break;
      case "rootSubscribe":
        sub = { kind: "root", id, conn };
        this.rootSubs.add(sub);
        break;
      default:
        throw rpcError(-32601, "Method not found");
    }
    conn.subs.set(id, sub);
    return sub;
  }

  /** A signature already at the asked commitment: one notification and the subscription is spent, as agave does. */
  private notifiedAtOnce(sub: Sub & { kind: "signature" }, after: (() => void)[]): boolean {
    const status = this.node.getSignatureStatus(sub.signature, true);
    if (!status || !reaches(status.commitment, sub.commitment)) return false;
    after.push(() =>
      this.notify(sub, "signatureNotification", {
        context: { slot: status.record.slot },
        value: { err: status.record.err },
      }),
    );
    return true;
  }

  private unsubscribe(conn: Conn, kind: Sub["kind"], rawId: unknown): boolean {
    const id =
      typeof rawId === "number" ? rawId : typeof rawId === "string" && /^\d+$/.test(rawId) ? Number(rawId) : NaN;
    const sub = conn.subs.get(id);
    if (!sub || sub.kind !== kind) throw rpcError(-32602, "Invalid subscription id.");
    this.remove(sub);
    return true;
  }

  private remove(sub: Sub): void {
    sub.conn.subs.delete(sub.id);
    switch (sub.kind) {
      case "signature":
        indexDelete(this.signatureSubs, sub.signature, sub);
        break;
      case "account":
        indexDelete(this.accountSubs, sub.pubkey, sub);
        break;
      case "program":
        indexDelete(this.programSubs, sub.program, sub);
        break;
      case "logs":
        this.logsSubs.delete(sub);
        break;
      case "slot":
        this.slotSubs.delete(sub);
        break;
      case "slotsUpdates":
        this.slotsUpdatesSubs.delete(sub);
        break;
      case "block":
        this.blockSubs.delete(sub);
        break;
      case "root":
        this.rootSubs.delete(sub);
        break;
    }
  }

  private onClose(conn: Conn): void {
    for (const sub of [...conn.subs.values()]) this.remove(sub);
    conn.ws = null;
    this.conns.delete(conn);
  }

  // ------------------------------------------------------------------ node events

  /**
   * Every update is kept for its slot's commitment, whoever listens now: as agave does, a
   * subscription made after a change but before the change's slot reaches the subscription's
   * commitment still hears it (agave compares the account's modified slot at that commitment with
   * the slot it last notified, initial_last_notified_slot).
   */
  private onAccounts(updates: AccountUpdate[]): void {
    for (const u of updates) {
      const pubkey = u.pubkey.toBase58();
      this.pendingSlot(u.slot).accounts.set(pubkey, u);
      for (const s of this.accountSubs.get(pubkey) ?? []) {
        if (s.commitment !== "processed") continue;
        this.notifyAccount(s, u);
        s.lastNotifiedSlot = u.slot;
      }
      for (const s of this.programSubs.get(u.owner.toBase58()) ?? [])
        if (s.commitment === "processed") this.notifyProgram(s, u);
    }
  }

  private onTransaction(record: TxRecord): void {
    const waiting = this.signatureSubs.get(record.signature);
    if (waiting) {
      for (const s of [...waiting]) {
        if (s.commitment === "processed") this.notifySignature(s, record);
        else if (s.received)
          this.notify(s, "signatureNotification", { context: { slot: record.slot }, value: "receivedSignature" });
      }
    }
    for (const s of this.logsSubs) if (s.commitment === "processed") this.notifyLogs(s, record);
    this.pendingSlot(record.slot).txs.push(record);
  }

  private onSlot(e: { closed: bigint; opened: bigint; finalized: bigint | null }): void {
    for (const s of this.slotSubs)
      this.notify(s, "slotNotification", { parent: e.closed, root: e.finalized ?? 0n, slot: e.opened });
    if (this.slotsUpdatesSubs.size > 0) this.notifySlotsUpdates(e);
    if (e.finalized !== null) for (const s of this.rootSubs) this.notify(s, "rootNotification", e.finalized);
    if (this.blockSubs.size > 0) {
      this.notifyBlocks(e.closed, "confirmed");
      if (e.finalized !== null) this.notifyBlocks(e.finalized, "finalized");
    }

    const confirmed = this.pending.get(e.closed);
    if (confirmed) {
      this.deliverLateProcessed(confirmed, e.closed);
      this.deliver(confirmed, "confirmed", e.closed);
    }
    if (e.finalized !== null) {
      const finalized = this.pending.get(e.finalized);
      if (finalized) this.deliver(finalized, "finalized", e.finalized);
    }
    for (const slot of this.pending.keys()) {
      if (slot + PENDING_SLOTS >= e.opened) break;
      this.pending.delete(slot);
    }

    for (const [signature, subs] of this.signatureSubs) {
      const status = this.node.getSignatureStatus(signature, true);
      if (!status) continue;
      for (const s of [...subs]) {
        if (reaches(status.commitment, s.commitment))
          this.notifySignature(s, { slot: status.record.slot, err: status.record.err });
      }
    }
  }

  private deliver(p: PendingSlot, commitment: Commitment, slot: bigint): void {
    for (const [pubkey, u] of p.accounts) {
      for (const s of this.accountSubs.get(pubkey) ?? []) {
        if (s.commitment !== commitment || s.lastNotifiedSlot === slot) continue;
        this.notifyAccount(s, u);
        s.lastNotifiedSlot = slot;
      }
      for (const s of this.programSubs.get(u.owner.toBase58()) ?? [])
        if (s.commitment === commitment) this.notifyProgram(s, u);
    }
    for (const r of p.txs) for (const s of this.logsSubs) if (s.commitment === commitment) this.notifyLogs(s, r);
  }

  /**
   * A processed subscription made after a change in the open slot hears the slot's end state when
   * the slot closes, as agave's (notified when the bank freezes, from the frozen bank) would.
   */
  private deliverLateProcessed(p: PendingSlot, slot: bigint): void {
    for (const [pubkey, u] of p.accounts) {
      for (const s of this.accountSubs.get(pubkey) ?? []) {
        if (s.commitment !== "processed" || s.lastNotifiedSlot >= slot) continue;
        this.notifyAccount(s, u);
        s.lastNotifiedSlot = slot;
      }
    }
  }

  /** The last closed slot a subscription at `commitment` sees (the open slot is still moving). */
  private levelSlot(commitment: Commitment): bigint {
    const closed = this.node.getSlot() - 1n;
    return commitment === "finalized" ? closed - FINALIZATION_SLOTS : closed;
  }

  /** The slot of the account's last change at or before `atSlot` that PubSub still holds; 0 before that. */
  private modifiedSlotAt(pubkey: string, atSlot: bigint): bigint {
    let found = 0n;
    for (const [slot, p] of this.pending) if (slot <= atSlot && slot > found && p.accounts.has(pubkey)) found = slot;
    return found;
  }

  private pendingSlot(slot: bigint): PendingSlot {
    let p = this.pending.get(slot);
    if (!p) {
      p = { accounts: new Map(), txs: [] };
      this.pending.set(slot, p);
    }
    return p;
  }

  // ------------------------------------------------------------------ notifications

  private notifySignature(s: Sub & { kind: "signature" }, r: { slot: bigint; err: TxRecord["err"] }): void {
    this.notify(s, "signatureNotification", { context: { slot: r.slot }, value: { err: r.err } });
    // A signature subscription ends with its notification.
    this.remove(s);
  }

  private notifyAccount(s: Sub & { kind: "account" }, u: AccountUpdate): void {
    this.notify(s, "accountNotification", { context: { slot: u.slot }, value: accountJson(u, s.encoding) });
  }

  private notifyProgram(s: Sub & { kind: "program" }, u: AccountUpdate): void {
    // A program's account that closed is no longer the program's: nothing to tell.
    if (u.lamports === 0n) return;
    if (!s.filters.every((f) => filterMatches(f, u.data))) return;
    this.notify(s, "programNotification", {
      context: { slot: u.slot },
      value: { pubkey: u.pubkey.toBase58(), account: accountJson(u, s.encoding) },
    });
  }

  private notifyLogs(s: Sub & { kind: "logs" }, r: TxRecord): void {
    if (s.mentions !== null && !r.accountKeys.some((k) => k.toBase58() === s.mentions)) return;
    this.notify(s, "logsNotification", {
      context: { slot: r.slot },
      value: { signature: r.signature, err: r.err, logs: r.logs },
    });
  }

  /**
   * A slot's life as agave's `slotsUpdatesSubscribe` tells it, in the order a validator reaches
   * each step: the closed slot completed, froze and was confirmed, the next one's bank was
   * created, and the slot 32 deeper was rooted. There are no shreds here, so no
   * `firstShredReceived` (a test validator, its own leader, sends none either); nothing dies.
   */
  private notifySlotsUpdates(e: { closed: bigint; opened: bigint; finalized: bigint | null }): void {
    const timestamp = BigInt(Date.now());
    const updates: unknown[] = [
      { type: "completed", slot: e.closed, timestamp },
      { type: "frozen", slot: e.closed, timestamp, stats: this.slotStats(e.closed) },
      { type: "createdBank", slot: e.opened, parent: e.closed, timestamp },
      { type: "optimisticConfirmation", slot: e.closed, timestamp },
    ];
    if (e.finalized !== null) updates.push({ type: "root", slot: e.finalized, timestamp });
    for (const update of updates)
      for (const s of this.slotsUpdatesSubs) this.notify(s, "slotsUpdatesNotification", update);
  }

  /** A frozen slot's transaction counts; the node makes no entries, so each transaction is one. */
  private slotStats(slot: bigint) {
    let failed = 0n;
    let succeeded = 0n;
    for (const signature of this.node.blockAt(slot)?.signatures ?? []) {
      if (this.node.getTransaction(signature)?.err) failed++;
      else succeeded++;
    }
    const transactions = failed + succeeded;
    return {
      numTransactionEntries: transactions,
      numSuccessfulTransactions: succeeded,
      numFailedTransactions: failed,
      maxTransactionsPerEntry: transactions > 0n ? 1n : 0n,
    };
  }

  /**
   * blockSubscribe: the block of `slot` to each subscription at `commitment`, as agave's
   * `filter_block_result_txs` gives it: a `mentionsAccountOrProgram` subscription hears only blocks
   * with a transaction naming the address (and only those transactions); a v0 transaction its
   * `maxSupportedTransactionVersion` does not admit makes the notification an error.
   */
  private notifyBlocks(slot: bigint, commitment: Commitment): void {
    const block = this.node.blockAt(slot);
    if (!block) return;
    const records: TxRecord[] = [];
    let missing = false;
    for (const signature of block.signatures) {
      const record = this.node.getTransaction(signature);
      if (record) records.push(record);
      else missing = true;
    }
    for (const s of this.blockSubs) {
      if (s.commitment !== commitment) continue;
      const txs = s.mentions === null ? records : records.filter((r) => mentions(r, s.mentions!));
      if (s.mentions !== null && txs.length === 0) continue;
      this.notify(s, "blockNotification", {
        context: { slot },
        value: blockUpdate(this.node, slot, block, txs, s.options, missing),
      });
    }
  }

  private notify(s: Sub, method: string, result: unknown): void {
    this.send(s.conn, { jsonrpc: "2.0", method, params: { result, subscription: s.id } });
  }

  private send(conn: Conn, payload: unknown): void {
    const ws = conn.ws;
    if (!ws) return;
    // A socket past the backpressure limit is closed by the transport; its subscriptions go with it.
    ws.send(stringifyJson(payload));
  }
}

// ------------------------------------------------------------------ params

function signatureSubOf(conn: Conn, id: number, p: unknown[]): Sub & { kind: "signature" } {
  const signature = stringParam(p[0], "signature");
  if (bs58Length(signature) !== 64) throw rpcError(-32602, "Invalid params: invalid signature");
  const cfg = configOf(p[1]);
  return {
    kind: "signature",
    id,
    conn,
    commitment: commitmentOf(cfg),
    signature,
    received: cfg.enableReceivedNotification === true,
  };
}

interface Config {
  commitment?: unknown;
  encoding?: unknown;
  enableReceivedNotification?: unknown;
  filters?: unknown;
}

function configOf(v: unknown): Config {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Config) : {};
}

function commitmentOf(cfg: Config): Commitment {
  const c = cfg.commitment ?? "finalized";
  // agave still accepts the deprecated names.
  if (c === "processed" || c === "recent") return "processed";
  if (c === "confirmed" || c === "single" || c === "singleGossip") return "confirmed";
  if (c === "finalized" || c === "root" || c === "max") return "finalized";
  throw rpcError(-32602, "Invalid params: unknown commitment");
}

function encodingOf(cfg: Config): Encoding {
  const e = cfg.encoding ?? "base58";
  if (e === "base58" || e === "base64" || e === "jsonParsed") return e;
  throw rpcError(-32602, `Invalid params: unsupported encoding ${String(e)}`);
}

function filtersOf(v: unknown): Filter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > MAX_FILTERS)
    throw rpcError(-32602, `Invalid params: at most ${MAX_FILTERS} filters`);
  return v.map((f) => {
    const o = configOf(f) as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if (typeof o.dataSize === "number" && Number.isInteger(o.dataSize) && o.dataSize >= 0)
      return { dataSize: o.dataSize };
    const m = o.memcmp;
    if (
      m &&
      typeof m.offset === "number" &&
      Number.isInteger(m.offset) &&
      m.offset >= 0 &&
      typeof m.bytes === "string" &&
      m.bytes.length <= 256
    ) {
      try {
        const bytes = m.encoding === "base64" ? Buffer.from(m.bytes, "base64") : bs58.decode(m.bytes);
        return { memcmp: { offset: m.offset, bytes } };
      } catch {
        throw rpcError(-32602, "Invalid params: memcmp bytes");
      }
    }
    throw rpcError(-32602, "Invalid params: unsupported filter");
  });
}

function filterMatches(f: Filter, data: Uint8Array): boolean {
  if (f.dataSize !== undefined) return data.length === f.dataSize;
  if (f.memcmp) {
    const { offset, bytes } = f.memcmp;
    if (offset + bytes.length > data.length) return false;
    for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
  }
  return true;
}

function logsFilterOf(v: unknown): string | null {
  if (v === "all" || v === "allWithVotes") return null;
  const mentions = (configOf(v) as { mentions?: unknown }).mentions;
  if (Array.isArray(mentions)) {
    // agave takes exactly one address here.
    if (mentions.length !== 1) throw rpcError(-32602, "Invalid Request: Only 1 address supported");
    return pubkeyParam(mentions[0]);
  }
  throw rpcError(-32602, 'Invalid params: logs filter must be "all", "allWithVotes" or {"mentions": [address]}');
}

/** blockSubscribe's filter and config, refused as agave refuses them. */
function blockParamsOf(p: unknown[]): {
  commitment: Commitment;
  mentions: string | null;
  options: BlockEncodingOptions;
} {
  const filter = p[0];
  let mentions: string | null = null;
  if (filter !== "all") {
    const key = (configOf(filter) as { mentionsAccountOrProgram?: unknown }).mentionsAccountOrProgram;
    if (typeof key !== "string")
      throw rpcError(-32602, 'Invalid params: block filter must be "all" or {"mentionsAccountOrProgram": address}');
    try {
      mentions = new PublicKey(key).toBase58();
    } catch {
      throw rpcError(-32602, "Invalid Request: Invalid mentions_account_or_program provided");
    }
  }
  const cfg = configOf(p[1]) as Config & {
    transactionDetails?: unknown;
    showRewards?: unknown;
    maxSupportedTransactionVersion?: unknown;
  };
  const commitment = commitmentOf(cfg);
  if (commitment === "processed") throw rpcError(-32602, "Method does not support commitment below `confirmed`");
  const max = cfg.maxSupportedTransactionVersion;
  if (max !== undefined && max !== null && (typeof max !== "number" || !Number.isInteger(max) || max < 0 || max > 255))
    throw rpcError(-32602, "Invalid params: maxSupportedTransactionVersion");
  return {
    commitment,
    mentions,
    options: {
      // agave's default here is base64, not getBlock's json
      encoding: txEncodingOf(cfg.encoding ?? "base64"),
      details: transactionDetailsOf(cfg.transactionDetails),
      rewards: cfg.showRewards === true,
      maxSupportedTransactionVersion: typeof max === "number" ? max : undefined,
    },
  };
}

/** Whether a transaction names `address` among its keys, loaded ones included (agave's account_keys). */
function mentions(r: TxRecord, address: string): boolean {
  return r.accountKeys.some((k) => k.toBase58() === address);
}

/** agave's RpcBlockUpdate: the block, or why it cannot be given. */
function blockUpdate(
  node: LocalNode,
  slot: bigint,
  block: NonNullable<ReturnType<LocalNode["blockAt"]>>,
  records: TxRecord[],
  options: BlockEncodingOptions,
  missing: boolean,
) {
  if (missing) return { slot, block: null, err: "BlockStoreError" };
  const max = options.maxSupportedTransactionVersion;
  const refused = records.find((r) => r.tx.version !== "legacy" && (max === undefined || r.tx.version > max));
  if (refused && options.details !== "none" && options.details !== "signatures")
    return { slot, block: null, err: { UnsupportedTransactionVersion: refused.tx.version } };
  return { slot, block: encodeBlock(node, block, records, options), err: null };
}

function stringParam(v: unknown, name: string): string {
  if (typeof v !== "string") throw rpcError(-32602, `Invalid params: ${name} must be a string`);
  return v;
}

function pubkeyParam(v: unknown): string {
  try {
    return new PublicKey(stringParam(v, "address")).toBase58();
  } catch {
    throw rpcError(-32602, "Invalid params: invalid address");
  }
}

function bs58Length(s: string): number {
  try {
    return s.length <= 100 ? bs58.decode(s).length : -1;
  } catch {
    return -1;
  }
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
function reaches(have: Commitment, want: Commitment): boolean {
  return RANK[have] >= RANK[want];
}

function accountJson(u: AccountUpdate, encoding: Encoding) {
  // A closed account is reported as agave reports it: no lamports, no data, the system program.
  const closed = u.lamports === 0n;
  const data = closed ? new Uint8Array(0) : u.data;
  // jsonParsed where there is a parser (lookup tables), else base64, as agave's does.
  const parsed = encoding === "jsonParsed" && !closed ? parsedAccountData(u.owner, data) : null;
  return {
    data:
      parsed ??
      (encoding === "base58" ? [bs58.encode(data), "base58"] : [Buffer.from(data).toString("base64"), "base64"]),
    executable: closed ? false : u.executable,
    lamports: u.lamports,
    owner: closed ? SYSTEM_PROGRAM : u.owner.toBase58(),
    rentEpoch: 18446744073709551615n,
    space: data.length,
  };
}

function indexAdd<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (!set) {
    set = new Set();
    index.set(key, set);
  }
  set.add(value);
}

function indexDelete<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}
