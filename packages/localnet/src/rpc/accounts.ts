/**
 * Account reads as agave answers them: getAccountInfo, getMultipleAccounts, getBalance,
 * getProgramAccounts (filters, encodings, dataSlice, withContext), the SPL Token reads
 * (getTokenAccountsByOwner/Delegate, getTokenAccountBalance, getTokenSupply,
 * getTokenLargestAccounts), getLargestAccounts and getSupply. Every read is of the state at the
 * asked commitment (finalized by default); scans walk the node's list of written addresses.
 */
import zlib from "node:zlib";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { type LocalNode, rpcError } from "../node";
import { readU64LE } from "../program";
import { isTokenProgram, mintDecimals, parsedAccountData, tokenAccountKind } from "../parsed";
import {
  addressParam,
  type Config,
  configOf,
  ctx,
  type Handler,
  type RpcContext,
  uiAmount,
  type View,
} from "./context";

const MAX_MULTIPLE_ACCOUNTS = 100;
/** agave's MAX_GET_PROGRAM_ACCOUNT_FILTERS */
const MAX_FILTERS = 4;
/** agave's MAX_BASE58_BYTES: base58 answers refuse larger data */
const MAX_BASE58_BYTES = 128;
/** agave's NUM_LARGEST_ACCOUNTS (getTokenLargestAccounts, getLargestAccounts) */
const NUM_LARGEST_ACCOUNTS = 20;

export type Account = NonNullable<ReturnType<LocalNode["getAccount"]>>;

interface Filter {
  dataSize?: number;
  memcmp?: { offset: number; bytes: Uint8Array };
  tokenAccountState?: true;
}

/** Owners' spellings: the node hands out one key per owner (node.ts ownerKeyOf), so most reads find it here. */
const ownerAddresses = new WeakMap<PublicKey, string>();
function ownerAddressOf(owner: PublicKey): string {
  let address = ownerAddresses.get(owner);
  if (address === undefined) {
    address = owner.toBase58();
    ownerAddresses.set(owner, address);
  }
  return address;
}

type Found = { pubkey: string; acc: Account };

/** What the handlers share: the node and its reads at a view's commitment. */
interface Reads {
  node: LocalNode;
  read: (address: string, v: View) => Account | null;
  encode: (acc: Account, cfg: Config, v: View) => unknown;
  accountJson: (address: string, cfg: Config, v: View) => unknown;
}

export function accountMethods(c: RpcContext): {
  methods: Record<string, Handler>;
  accountJson: (address: string, cfg: Config, v: View) => unknown;
  encode: (acc: Account, cfg: Config, v: View) => unknown;
} {
  const { node } = c;

  /** The account as the view's commitment sees it (finalized: the state 33 slots ago). */
  const read = (address: string, v: View): Account | null => node.laidOut(address, node.getAccountAt(address, v.slot));

  const decimalsAt = (v: View) => (mint: string) => {
    const acc = read(mint, v);
    return acc ? mintDecimals(acc.owner.toBase58(), acc.data) : null;
  };

  const encode = (acc: Account, cfg: Config, v: View): unknown => encodeAccount(acc, cfg, decimalsAt(v));

  const accountJson = (address: string, cfg: Config, v: View): unknown => {
    checkedEncoding(cfg);
    const acc = read(address, v);
    return acc ? encode(acc, cfg, v) : null;
  };

  const r: Reads = { node, read, encode, accountJson };
  const methods: Record<string, Handler> = {
    getBalance: (p, v) => ({ context: ctx(v), value: read(addressParam(p[0]), v)?.lamports ?? 0n }),
    getAccountInfo: (p, v) => ({ context: ctx(v), value: accountJson(addressParam(p[0]), configOf(p[1]), v) }),
    getMultipleAccounts: (p, v) => multipleAccounts(r, p, v),
    getProgramAccounts: (p, v) => programAccounts(r, p, v),
    getTokenAccountsByOwner: (p, v) => tokenAccountsBy(r, "owner", p, v),
    getTokenAccountsByDelegate: (p, v) => tokenAccountsBy(r, "delegate", p, v),
    getTokenAccountBalance: (p, v) => tokenAccountBalance(r, p, v),
    getTokenSupply: (p, v) => {
      const mint = mintAt(r, addressParam(p[0]), v);
      return { context: ctx(v), value: uiAmount(mint.supply, mint.decimals) };
    },
    getTokenLargestAccounts: (p, v) => tokenLargestAccounts(r, p, v),
    getLargestAccounts: (p, v) => largestAccounts(r, p, v),
    getSupply: (p, v) => supply(r, p, v),
  };
  return { methods, accountJson, encode };
}

/** The account in the asked encoding; `decimalsOf` gives a mint's decimals for jsonParsed token amounts. */
function encodeAccount(acc: Account, cfg: Config, decimalsOf: (mint: string) => number | null): unknown {
  const encoding = checkedEncoding(cfg);
  const slice = cfg.dataSlice;
  let data = acc.data;
  if (slice) data = data.subarray(slice.offset, slice.offset + slice.length);
  const parsed = encoding === "jsonParsed" ? parsedAccountData(acc.owner, data, decimalsOf) : null;
  if ((encoding === "binary" || encoding === "base58") && data.length > MAX_BASE58_BYTES)
    throw rpcError(
      -32600,
      `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`,
    );
  return {
    data:
      parsed ??
      (encoding === "binary"
        ? bs58.encode(data)
        : encoding === "base58"
          ? [bs58.encode(data), "base58"]
          : encoding === "base64+zstd"
            ? [Buffer.from(zstd(data)).toString("base64"), "base64+zstd"]
            : [Buffer.from(data).toString("base64"), "base64"]),
    executable: acc.executable,
    lamports: acc.lamports,
    owner: ownerAddressOf(acc.owner),
    rentEpoch: 18446744073709551615n,
    space: acc.data.length,
  };
}

/** Every live account the view holds that `keep` accepts, in the order the node first wrote them. */
function scan(r: Reads, v: View, keep: (address: string, acc: Account) => boolean): Found[] {
  const out: Found[] = [];
  for (const address of r.node.knownAddresses()) {
    const acc = r.read(address, v);
    if (acc && keep(address, acc)) out.push({ pubkey: address, acc });
  }
  return out;
}

/**
 * Every account, the runtime's own from genesis too (sysvars, builtins, SPL programs), as
 * agave's whole-bank scans see them. Program scans leave those out: they are read whole, program
 * code included, and no program scan the clients make looks for them.
 */
function scanAll(r: Reads, v: View): Found[] {
  const out = scan(r, v, () => true);
  for (const address of r.node.runtimeAddresses()) {
    const acc = r.read(address, v);
    if (acc) out.push({ pubkey: address, acc });
  }
  return out;
}

function listed(r: Reads, found: Found[], cfg: Config, v: View) {
  return found.map(({ pubkey, acc }) => ({ pubkey, account: r.encode(acc, cfg, v) }));
}

/** A mint the view holds, or agave's error for what the address is instead. */
function mintAt(r: Reads, address: string, v: View): { decimals: number; supply: bigint; program: string } {
  const acc = r.read(address, v);
  if (!acc) throw rpcError(-32602, "Invalid param: could not find account");
  const program = acc.owner.toBase58();
  const decimals = mintDecimals(program, acc.data);
  if (decimals === null) throw rpcError(-32602, "Invalid param: not a Token mint");
  return { decimals, supply: readU64LE(acc.data, 36), program };
}

function multipleAccounts(r: Reads, p: unknown[], v: View): unknown {
  const list = p[0];
  if (!Array.isArray(list)) throw rpcError(-32602, "Invalid params: expected an array of addresses");
  if (list.length > MAX_MULTIPLE_ACCOUNTS)
    throw rpcError(-32602, `Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  const cfg = configOf(p[1]);
  return { context: ctx(v), value: list.map((a) => r.accountJson(addressParam(a), cfg, v)) };
}

function programAccounts(r: Reads, p: unknown[], v: View): unknown {
  const program = addressParam(p[0]);
  const cfg = configOf(p[1]);
  checkedEncoding(cfg);
  const filters = filtersOf(cfg.filters);
  const found = scan(r, v, (_a, acc) => {
    if (acc.owner.toBase58() !== program) return false;
    return filters.every((f) => {
      if (f.dataSize !== undefined) return acc.data.length === f.dataSize;
      if (f.memcmp) return bytesEqual(acc.data, f.memcmp.offset, f.memcmp.bytes);
      return tokenAccountKind(program, acc.data) === "account" && acc.data[108] !== 0;
    });
  });
  const value = listed(r, found, cfg, v);
  return cfg.withContext ? { context: ctx(v), value } : value;
}

function tokenAccountsBy(r: Reads, field: "owner" | "delegate", p: unknown[], v: View): unknown {
  const who = new PublicKey(addressParam(p[0])).toBytes();
  const filter = configOf(p[1]) as { mint?: unknown; programId?: unknown };
  const cfg = configOf(p[2]);
  checkedEncoding(cfg);
  let program: string;
  let mint: Uint8Array | null = null;
  if (typeof filter.mint === "string") {
    const mintAcc = r.read(addressParam(filter.mint), v);
    if (!mintAcc) throw rpcError(-32602, "Invalid param: could not find mint");
    program = mintAcc.owner.toBase58();
    if (!isTokenProgram(program)) throw rpcError(-32602, "Invalid param: not a Token mint");
    mint = new PublicKey(filter.mint).toBytes();
  } else if (typeof filter.programId === "string") {
    program = addressParam(filter.programId);
    if (!isTokenProgram(program)) throw rpcError(-32602, "Invalid param: unrecognized Token program id");
  } else {
    throw rpcError(-32602, "Invalid params: expected `mint` or `programId`");
  }
  const offset = field === "owner" ? 32 : 76;
  const found = scan(r, v, (_a, acc) => {
    if (acc.owner.toBase58() !== program || tokenAccountKind(program, acc.data) !== "account") return false;
    if (field === "delegate" && readU32(acc.data, 72) !== 1) return false;
    if (!bytesEqual(acc.data, offset, who)) return false;
    return !mint || bytesEqual(acc.data, 0, mint);
  });
  return { context: ctx(v), value: listed(r, found, cfg, v) };
}

function tokenAccountBalance(r: Reads, p: unknown[], v: View): unknown {
  const acc = r.read(addressParam(p[0]), v);
  if (!acc) throw rpcError(-32602, "Invalid param: could not find account");
  if (tokenAccountKind(acc.owner.toBase58(), acc.data) !== "account")
    throw rpcError(-32602, "Invalid param: not a Token account");
  const mint = mintAt(r, new PublicKey(acc.data.subarray(0, 32)).toBase58(), v);
  return { context: ctx(v), value: uiAmount(readU64LE(acc.data, 64), mint.decimals) };
}

function tokenLargestAccounts(r: Reads, p: unknown[], v: View): unknown {
  const mintAddress = addressParam(p[0]);
  const mint = mintAt(r, mintAddress, v);
  const mintBytes = new PublicKey(mintAddress).toBytes();
  const found = scan(
    r,
    v,
    (_a, acc) =>
      acc.owner.toBase58() === mint.program &&
      tokenAccountKind(mint.program, acc.data) === "account" &&
      bytesEqual(acc.data, 0, mintBytes),
  );
  const largest = found
    .map(({ pubkey, acc }) => ({ address: pubkey, amount: readU64LE(acc.data, 64) }))
    .sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1))
    .slice(0, NUM_LARGEST_ACCOUNTS);
  return {
    context: ctx(v),
    value: largest.map((a) => ({ address: a.address, ...uiAmount(a.amount, mint.decimals) })),
  };
}

function largestAccounts(r: Reads, p: unknown[], v: View): unknown {
  const cfg = configOf(p[0]) as Config & { filter?: unknown };
  if (cfg.filter !== undefined && cfg.filter !== "circulating" && cfg.filter !== "nonCirculating")
    throw rpcError(
      -32602,
      `Invalid params: unknown variant \`${String(cfg.filter)}\`, expected \`circulating\` or \`nonCirculating\`.`,
    );
  // Nothing on a local chain is locked up: every account circulates.
  if (cfg.filter === "nonCirculating") return { context: ctx(v), value: [] };
  const all = scanAll(r, v)
    .map(({ pubkey, acc }) => ({ address: pubkey, lamports: acc.lamports }))
    .sort((a, b) => (a.lamports === b.lamports ? 0 : a.lamports > b.lamports ? -1 : 1))
    .slice(0, NUM_LARGEST_ACCOUNTS);
  return { context: ctx(v), value: all };
}

function supply(r: Reads, p: unknown[], v: View): unknown {
  const cfg = configOf(p[0]) as Config & { excludeNonCirculatingAccountsList?: boolean };
  let total = 0n;
  for (const { acc } of scanAll(r, v)) total += acc.lamports;
  return {
    context: ctx(v),
    value: {
      total,
      circulating: total,
      nonCirculating: 0n,
      nonCirculatingAccounts: cfg.excludeNonCirculatingAccountsList ? [] : [],
    },
  };
}

/** The account encoding asked for, refused up front as agave refuses it (before any account is read). */
function checkedEncoding(cfg: Config): string {
  const encoding = cfg.encoding ?? "binary";
  if (!["binary", "base58", "base64", "base64+zstd", "jsonParsed"].includes(encoding))
    throw rpcError(
      -32602,
      `Invalid params: unknown variant \`${encoding}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`,
    );
  if (cfg.dataSlice && encoding === "jsonParsed")
    throw rpcError(-32600, "Sliced account data can only be encoded using binary (base 58) or base64 encoding.");
  return encoding;
}

function filtersOf(raw: unknown): Filter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw rpcError(-32602, "Invalid params: filters must be an array");
  if (raw.length > MAX_FILTERS) throw rpcError(-32602, `Too many filters provided; max ${MAX_FILTERS}`);
  return raw.map((f): Filter => {
    const o = (f ?? {}) as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if (o.dataSize !== undefined) {
      if (typeof o.dataSize !== "number" || !Number.isInteger(o.dataSize) || o.dataSize < 0)
        throw rpcError(-32602, "Invalid params: dataSize");
      return { dataSize: o.dataSize };
    }
    if (o.memcmp) {
      const { offset, bytes, encoding = "base58" } = o.memcmp;
      if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0 || typeof bytes !== "string")
        throw rpcError(-32602, "Invalid params: memcmp");
      let decoded: Uint8Array;
      if (encoding === "base58") {
        // agave's MAX_DATA_BASE58_SIZE
        if (bytes.length > 175) throw rpcError(-32602, "Invalid param: memcmp: base58 encoded bytes too large");
        try {
          decoded = bs58.decode(bytes);
        } catch {
          throw rpcError(-32602, "Invalid param: memcmp: invalid base58");
        }
      } else if (encoding === "base64") {
        if (bytes.length > 172) throw rpcError(-32602, "Invalid param: memcmp: base64 encoded bytes too large");
        decoded = Buffer.from(bytes, "base64");
      } else {
        throw rpcError(-32602, "Invalid params: memcmp encoding");
      }
      if (decoded.length > 128) throw rpcError(-32602, "Invalid param: memcmp: data too large");
      return { memcmp: { offset, bytes: decoded } };
    }
    if ("tokenAccountState" in (o as object)) return { tokenAccountState: true };
    throw rpcError(-32602, "Invalid params: unknown filter");
  });
}

function bytesEqual(data: Uint8Array, offset: number, bytes: Uint8Array): boolean {
  if (offset + bytes.length > data.length) return false;
  for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
  return true;
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset + offset, 4).getUint32(0, true);
}

function zstd(data: Uint8Array): Uint8Array {
  const compress =
    (globalThis as { Bun?: { zstdCompressSync?: (d: Uint8Array) => Uint8Array } }).Bun?.zstdCompressSync ??
    (zlib as { zstdCompressSync?: (d: Uint8Array) => Uint8Array }).zstdCompressSync;
  if (!compress) throw rpcError(-32602, "Invalid params: base64+zstd is not available on this runtime");
  return compress(data);
}
