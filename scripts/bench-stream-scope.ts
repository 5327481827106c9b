/**
 * Program-wide stream against per-token filters (issue 42): what a Yellowstone provider sends the
 * indexer per hour of trading when it watches this service's tokens account by account, compared
 * with a stream of every curve of the launch program filtered locally, on the embedded local chain
 * with foreign traffic (tokens launched by someone else on the same program, not this service's).
 *
 *   bun run bench:stream-scope                                   N = 1,000 and 10,000; foreign 1×, 10×, 100× (~2-3 min)
 *   bun run bench:stream-scope -- --own 1000 --multiples 1,10    a quicker run
 *   options: --own-trade-rate 0.05 (trades a token-hour), --foreign-rate 1 (a foreign token's rate as a
 *            multiple of an own token's), --sample-own-trades 30, --own-launched 200, --foreign-tokens 200,
 *            --resends-per-hour <n> (default 0.2% of N), --seed 7
 *
 * Own tokens (N) and foreign tokens are launched first, then for each point (N, F/N) the same
 * trading is run while these subscribers, official `@triton-one/yellowstone-grpc` clients at the
 * indexer's commitment (confirmed), are connected at the same time:
 *  (a) per-token: account filters of 5,000 keys listing each own token's watched accounts, found as
 *      IndexerCore.track finds them (the adapter's readVaults over a recording reader, plus the
 *      bonding curve): on the local program curve vault, pool vault, creator, mint, bonding curve;
 *  (b) program-wide, in two parts, because the fees are not in program-owned accounts:
 *      (b1) every curve of the program, own and foreign: on mainnet `owner` = pump (and pump AMM)
 *           with a memcmp on the BondingCurve (Pool) discriminator. The local program owns no
 *           account (its curves are system accounts, see packages/localnet/src/program.ts), so an
 *           owner filter has nothing to select here; b1 lists every launched curve instead, which
 *           the provider answers with the same messages an owner filter would (the request then
 *           grows, the owner filter's does not: its size is printed from the real pump request,
 *           which is sent along and delivers nothing here). Bytes are also given with each curve
 *           message carrying pump's 151-byte BondingCurve (the local curve has no data);
 *      (b2) the vaults it does not see: pump's creator vault is a system-owned PDA and the pool's
 *           creator vault a token account, neither owned by pump, so the fees still need
 *           per-token filters on curve vault, pool vault and creator (3 of (a)'s 5 keys), or an
 *           RPC read of those per own trade (its request and response bytes are measured too);
 *  (c) transactions naming the program (here its event authority, which every op names; on
 *      mainnet the pump program ids).
 * A check subscriber with `owner` = the SPL Token program shows the local server honours owner
 * filters (every trade writes token accounts).
 *
 * Scaling: what each subscriber receives is a fixed number of messages per trade (of an own token
 * for (a) and (b2), of any token for (b1) and (c)), whatever the token count; only the request
 * grows with N. So each point trades a sample (`--sample-own-trades` on own tokens, F/N × foreign
 * rate times as many on foreign tokens, interleaved), and per-hour figures are the sample scaled to
 * N × own-trade-rate own trades an hour. Launching takes 5-30 ms a token on a busy machine and a
 * trade ~17 ms, so only `--own-launched` own and `--foreign-tokens` foreign tokens are launched and
 * traded (each stands for N / that many, or F / that many); the rest of the N own tokens are
 * derived addresses in the filters only (they never trade in the sample, so they send nothing,
 * but the request and the server's matching are those of N tokens).
 */
import Client, { CommitmentLevel, SubscribeRequest, SubscribeUpdate } from "@triton-one/yellowstone-grpc";
import { seededRandom, startLocalChain } from "@fee-ledger/localnet";
import { emptyRequest, recordingReader } from "../indexer";
import { BONDING_CURVE_NEW_SIZE, PUMP_AMM_PROGRAM_ID, PUMP_PROGRAM_ID } from "@pump-fun/pump-sdk";
import { TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import bs58 from "bs58";
import { launchProgramOver, localLaunchProgram } from "../src/chain/setup";
import type { ChainReader, TokenRef } from "../src/chain/ports";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const list = (name: string, fallback: string) => arg(name, fallback).split(",").map(Number);
const OWN = list("--own", "1000,10000");
const MULTIPLES = list("--multiples", "1,10,100");
/** own trades a token-hour: bench:cost's profile (~0.7% of tokens trading an hour, a few trades each) */
const OWN_TRADE_RATE = Number(arg("--own-trade-rate", "0.05"));
const FOREIGN_RATE = Number(arg("--foreign-rate", "1"));
const SAMPLE_OWN_TRADES = Number(arg("--sample-own-trades", "30"));
const FOREIGN_TOKENS = Number(arg("--foreign-tokens", "200"));
/** own tokens launched and traded; the rest of N are in the filters only */
const OWN_LAUNCHED = Number(arg("--own-launched", "200"));
const SEED = Number(arg("--seed", "7"));
const RESENDS_PER_HOUR = args.includes("--resends-per-hour") ? Number(arg("--resends-per-hour", "0")) : null;
/** the indexer's keys per account filter (indexer/grpc.ts KEYS_PER_FILTER) */
const KEYS_PER_FILTER = 5_000;
const TRADES_PER_SLOT = 50;
const say = (line: string) => process.stdout.write(`${line}\n`);

const random = seededRandom(SEED);

/** Anchor's account discriminator: what a memcmp at offset 0 matches to pick one account type. */
function discriminator(name: string): Uint8Array {
  return new Bun.CryptoHasher("sha256").update(`account:${name}`).digest().subarray(0, 8);
}

/** Account filters of at most KEYS_PER_FILTER keys each, as indexer/grpc.ts request() builds them. */
function accountFilters(prefix: string, addresses: readonly string[]): SubscribeRequest["accounts"] {
  const out: SubscribeRequest["accounts"] = {};
  for (let i = 0; i < addresses.length; i += KEYS_PER_FILTER)
    out[`${prefix}-${i / KEYS_PER_FILTER}`] = {
      account: addresses.slice(i, i + KEYS_PER_FILTER),
      owner: [],
      filters: [],
    };
  return out;
}

/** Mainnet's program-wide curve and pool stream: by owner, only the account type with the state. */
function pumpProgramWideFilters(): SubscribeRequest["accounts"] {
  const byType = (owner: string, type: string) => ({
    account: [],
    owner: [owner],
    filters: [{ memcmp: { offset: "0", base58: bs58.encode(discriminator(type)) } }],
  });
  return {
    "pump-curves": byType(PUMP_PROGRAM_ID.toBase58(), "BondingCurve"),
    "pump-amm-pools": byType(PUMP_AMM_PROGRAM_ID.toBase58(), "Pool"),
  };
}

const requestBytes = (r: SubscribeRequest) => SubscribeRequest.encode(r).finish().length;

interface Tally {
  messages: number;
  bytes: number;
  /** bytes with each local curve message carrying pump's BondingCurve data instead of none */
  pumpSizedBytes: number;
  /** messages whose account owner is not the one the filter asked for (owner check) */
  foreignOwner: number;
}
const tally = (): Tally => ({ messages: 0, bytes: 0, pumpSizedBytes: 0, foreignOwner: 0 });

/** One subscriber: its own client and stream, counting account and transaction messages. */
class Subscriber {
  readonly counts = tally();
  private client!: Client;
  private stream!: Awaited<ReturnType<Client["subscribe"]>>;
  private pongs = new Set<number>();

  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly ownerCheck: string | null = null,
  ) {}

  /** curve accounts: their messages are also counted as carrying pump's BondingCurve data */
  static curves = new Set<string>();
  /** ping ids (not drawn from `random`: the number of pings varies, the trades must not) */
  static pings = 0;

  async open(request: SubscribeRequest): Promise<void> {
    this.client = new Client(this.url, undefined, { grpcMaxDecodingMessageSize: 64 * 1024 * 1024 });
    await this.client.connect();
    this.stream = await this.client.subscribe();
    this.stream.on("data", (u: SubscribeUpdate) => this.count(u));
    this.stream.on("error", () => {});
    await this.write(request);
    // the pong follows the server's taking of the filters: the subscription is in place
    await this.ping();
  }

  private count(u: SubscribeUpdate): void {
    if (u.pong) this.pongs.add(u.pong.id);
    if (!u.account && !u.transaction) return;
    const bytes = SubscribeUpdate.encode(u).finish().length;
    this.counts.messages++;
    this.counts.bytes += bytes;
    const a = u.account?.account;
    if (a && this.ownerCheck !== null && bs58.encode(a.owner) !== this.ownerCheck) this.counts.foreignOwner++;
    const pumpSized = a && a.data.length === 0 && Subscriber.curves.has(bs58.encode(a.pubkey));
    this.counts.pumpSizedBytes += pumpSized
      ? SubscribeUpdate.encode({
          ...u,
          account: { ...u.account!, account: { ...a, data: new Uint8Array(BONDING_CURVE_NEW_SIZE) } },
        }).finish().length
      : bytes;
  }

  private write(request: SubscribeRequest): Promise<void> {
    return new Promise((resolve, reject) =>
      this.stream.write(request, (e: Error | null | undefined) => (e ? reject(e) : resolve())),
    );
  }

  async ping(): Promise<void> {
    const id = ++Subscriber.pings;
    await this.write({ ...emptyRequest(), ping: { id } });
    const deadline = Date.now() + 30_000;
    while (!this.pongs.has(id)) {
      if (Date.now() > deadline) throw new Error(`${this.name}: the endpoint did not answer`);
      await Bun.sleep(5);
    }
  }

  reset(): void {
    Object.assign(this.counts, tally());
  }

  close(): void {
    try {
      this.stream.destroy();
    } catch {
      // already closed
    }
  }
}

// ------------------------------------------------------------------ chain, tokens

const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
const localOver = (reader: ChainReader) => localLaunchProgram(chain, reader);
const pumpOver = launchProgramOver();

interface Token {
  ref: TokenRef;
  /** what the indexer watches for it */
  watched: string[];
  curve: string;
  vaults: string[];
}

/** The accounts IndexerCore.track watches for a token: what readVaults asks, plus the bonding curve. */
async function watchedOf(over: typeof localOver, ref: TokenRef): Promise<string[]> {
  const asked: string[] = [];
  const program = over(recordingReader({} as ChainReader, asked));
  await program.readVaults([ref]);
  return [...new Set([...asked, program.vaultAddresses(ref).bondingCurve])];
}

async function launch(count: number, label: string, payer: Keypair): Promise<Token[]> {
  chain.node.fund(payer.publicKey, 10_000n * BigInt(LAMPORTS_PER_SOL));
  const tokens: Token[] = [];
  for (let i = 0; i < count; i++) {
    const creator = Keypair.generate().publicKey.toBase58();
    const created = chain.launch.createToken({ name: `${label}${i}`, symbol: label, uri: "local://s", creator, payer });
    if (created.err) throw new Error(`launch ${label}${i} failed`);
    tokens.push(await tokenOf({ mint: created.mint, creator }));
    if (i % 500 === 499) chain.node.advanceSlots(1);
  }
  chain.node.advanceSlots(1);
  return tokens;
}

async function tokenOf(ref: TokenRef): Promise<Token> {
  const v = localOver(recordingReader({} as ChainReader, [])).vaultAddresses(ref);
  return {
    ref,
    watched: await watchedOf(localOver, ref),
    curve: v.bondingCurve,
    vaults: [v.curveVault, v.poolVault!, ref.creator],
  };
}

/**
 * Own tokens that do not trade in the sample need no launch: their accounts are in the filters
 * (the request's size and the server's matching are real) but they send nothing.
 */
async function quietTokens(count: number): Promise<Token[]> {
  const tokens: Token[] = [];
  for (let i = 0; i < count; i++)
    tokens.push(
      await tokenOf({
        mint: Keypair.generate().publicKey.toBase58(),
        creator: Keypair.generate().publicKey.toBase58(),
      }),
    );
  return tokens;
}

const launchStarted = performance.now();
const maxOwn = Math.max(...OWN);
const ownTrading = await launch(Math.min(OWN_LAUNCHED, Math.min(...OWN)), "O", Keypair.generate());
const foreign = await launch(FOREIGN_TOKENS, "F", Keypair.generate());
const launchSeconds = (performance.now() - launchStarted) / 1000;
const own = [...ownTrading, ...(await quietTokens(maxOwn - ownTrading.length))];
for (const t of [...own, ...foreign]) Subscriber.curves.add(t.curve);
say(
  `launched ${ownTrading.length} own and ${foreign.length} foreign tokens in ${launchSeconds.toFixed(0)} s; ` +
    `${own.length - ownTrading.length} more own tokens only in the filters`,
);

const traders = Array.from({ length: 16 }, () => {
  const kp = Keypair.generate();
  chain.node.fund(kp.publicKey, 100_000n * BigInt(LAMPORTS_PER_SOL));
  return kp;
});

/** One trade of a token: a buy of 0.01-0.05 SOL, or (30%) a sell of part of what the trader holds. */
function trade(token: Token): void {
  const trader = traders[Math.floor(random() * traders.length)]!;
  const held = chain.launch.tokenBalance(token.ref.mint, trader.publicKey);
  const r =
    held > 0n && random() < 0.3
      ? chain.launch.sell({ mint: token.ref.mint, seller: trader, tokensIn: held / 2n || held })
      : chain.launch.buy({
          mint: token.ref.mint,
          buyer: trader,
          solInLamports: BigInt(Math.floor((0.01 + random() * 0.04) * LAMPORTS_PER_SOL)),
        });
  if (r.err) throw new Error(`trade failed: ${JSON.stringify(r.err)}`);
}

/** Waits until no subscriber has received anything for a while (everything sent has arrived). */
async function settle(subs: Subscriber[]): Promise<void> {
  chain.node.advanceSlots(1);
  let last = -1;
  for (;;) {
    await Promise.all(subs.map((s) => s.ping()));
    await Bun.sleep(200);
    const total = subs.reduce((n, s) => n + s.counts.messages, 0);
    if (total === last) return;
    last = total;
  }
}

/** Request and response bytes of one RPC read of a token's vaults (b2's alternative). */
async function vaultReadBytes(token: Token): Promise<{ request: number; response: number }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "getMultipleAccounts",
    params: [token.vaults, { encoding: "base64", commitment: "confirmed" }],
  });
  const response = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { request: body.length, response: (await response.arrayBuffer()).byteLength };
}

// ------------------------------------------------------------------ points

interface Point {
  own: number;
  multiple: number;
  ownTrades: number;
  foreignTrades: number;
  /** own trades an hour at this N: what the sample is scaled to */
  ownTradesPerHour: number;
  a: Tally;
  b1: Tally;
  b2: Tally;
  c: Tally;
  requestBytes: { a: number; b1Listed: number; b1Owner: number; b2: number; c: number; aPump: number };
  filters: { a: number; b2: number };
  seconds: number;
}

const pumpWatchedPerToken = await watchedOf(pumpOver, own[0]!.ref);
const pumpShared = await watchedOf(pumpOver, own[1]!.ref).then((w) => w.filter((x) => pumpWatchedPerToken.includes(x)));
const rpcRead = await vaultReadBytes(own[0]!);
const points: Point[] = [];
let ownerCheck: Tally | null = null;

for (const n of OWN) {
  const mine = own.slice(0, n);
  // mainnet's (a) at this N: the pump adapter's five per token and the global account, once
  const pumpKeys = pumpWatchedPerToken.length - pumpShared.length;
  const aPump = requestBytes({
    ...emptyRequest(),
    commitment: CommitmentLevel.CONFIRMED,
    accounts: accountFilters("vaults", [
      ...pumpShared,
      ...Array.from({ length: n * pumpKeys }, (_, i) => pumpWatchedPerToken[pumpShared.length + (i % pumpKeys)]!),
    ]),
  });
  for (const multiple of MULTIPLES) {
    const started = performance.now();
    const requests = {
      a: {
        ...emptyRequest(),
        commitment: CommitmentLevel.CONFIRMED,
        accounts: accountFilters(
          "vaults",
          mine.flatMap((t) => t.watched),
        ),
      },
      b1: {
        ...emptyRequest(),
        commitment: CommitmentLevel.CONFIRMED,
        accounts: {
          ...accountFilters(
            "curves",
            [...mine, ...foreign].map((t) => t.curve),
          ),
          ...pumpProgramWideFilters(),
        },
      },
      b2: {
        ...emptyRequest(),
        commitment: CommitmentLevel.CONFIRMED,
        accounts: accountFilters(
          "fees",
          mine.flatMap((t) => t.vaults),
        ),
      },
      c: {
        ...emptyRequest(),
        commitment: CommitmentLevel.CONFIRMED,
        transactions: {
          program: {
            accountInclude: [chain.programKeys.eventAuthority.publicKey.toBase58()],
            accountExclude: [],
            accountRequired: [],
            vote: false,
            failed: false,
          },
        },
      },
    };
    const subs = {
      a: new Subscriber("a", chain.grpcUrl),
      b1: new Subscriber("b1", chain.grpcUrl),
      b2: new Subscriber("b2", chain.grpcUrl),
      c: new Subscriber("c", chain.grpcUrl),
    };
    const all = Object.values(subs);
    for (const [key, sub] of Object.entries(subs)) await sub.open(requests[key as keyof typeof requests]);
    const check: Subscriber | null =
      ownerCheck === null ? new Subscriber("owner", chain.grpcUrl, TOKEN_PROGRAM_ID.toBase58()) : null;
    if (check)
      await check.open({
        ...emptyRequest(),
        commitment: CommitmentLevel.CONFIRMED,
        accounts: { tokens: { account: [], owner: [TOKEN_PROGRAM_ID.toBase58()], filters: [] } },
      });
    const watching = check ? [...all, check] : all;
    await settle(watching);
    for (const s of watching) s.reset();

    // own and foreign trades interleaved at their shares, as they would arrive
    const foreignTrades = Math.round(SAMPLE_OWN_TRADES * multiple * FOREIGN_RATE);
    const total = SAMPLE_OWN_TRADES + foreignTrades;
    let ownDone = 0;
    for (let i = 0; i < total; i++) {
      const ownDue = Math.round(((i + 1) * SAMPLE_OWN_TRADES) / total);
      if (ownDone < ownDue) {
        trade(ownTrading[Math.floor(random() * ownTrading.length)]!);
        ownDone++;
      } else trade(foreign[Math.floor(random() * foreign.length)]!);
      if (i % TRADES_PER_SLOT === TRADES_PER_SLOT - 1) {
        chain.node.advanceSlots(1);
        await Bun.sleep(0);
      }
    }
    await settle(watching);
    if (check) {
      ownerCheck = { ...check.counts };
      check.close();
    }
    points.push({
      own: n,
      multiple,
      ownTrades: SAMPLE_OWN_TRADES,
      foreignTrades,
      ownTradesPerHour: n * OWN_TRADE_RATE,
      a: { ...subs.a.counts },
      b1: { ...subs.b1.counts },
      b2: { ...subs.b2.counts },
      c: { ...subs.c.counts },
      requestBytes: {
        a: requestBytes(requests.a),
        b1Listed: requestBytes(requests.b1),
        b1Owner: requestBytes({
          ...emptyRequest(),
          commitment: CommitmentLevel.CONFIRMED,
          accounts: pumpProgramWideFilters(),
        }),
        b2: requestBytes(requests.b2),
        c: requestBytes(requests.c),
        aPump,
      },
      filters: { a: Object.keys(requests.a.accounts).length, b2: Object.keys(requests.b2.accounts).length },
      seconds: (performance.now() - started) / 1000,
    });
    for (const s of all) s.close();
    const p = points[points.length - 1]!;
    say(
      `N ${n}, foreign ${multiple}x: ${p.ownTrades} own + ${p.foreignTrades} foreign trades in ${p.seconds.toFixed(0)} s; ` +
        `messages a ${p.a.messages}, b1 ${p.b1.messages}, b2 ${p.b2.messages}, c ${p.c.messages}`,
    );
  }
}
await chain.stop();

// ------------------------------------------------------------------ report

const mb = (bytes: number) => (bytes / 1e6 >= 100 ? (bytes / 1e6).toFixed(0) : (bytes / 1e6).toFixed(2));
const k = (x: number) => Math.round(x).toLocaleString("en-US");
const perHour = (p: Point, x: number) => (x * p.ownTradesPerHour) / p.ownTrades;
say("");
say(
  `per hour at ${OWN_TRADE_RATE} own trades a token-hour, foreign tokens trading at ${FOREIGN_RATE}x an own token's rate: ` +
    "messages / MB received, local layout | with pump's 151-byte curve in each curve message",
);
say(
  "| N own | F/N | own trades/h | foreign trades/h | (a) per-token | (b1) all curves | (b) = b1 + (b2) vault filters | (c) transactions |",
);
say("|---|---|---|---|---|---|---|---|");
for (const p of points) {
  const h = (x: number) => perHour(p, x);
  say(
    `| ${k(p.own)} | ${p.multiple}× | ${k(p.ownTradesPerHour)} | ${k(h(p.foreignTrades))} | ` +
      `${k(h(p.a.messages))} / ${mb(h(p.a.bytes))} \\| ${mb(h(p.a.pumpSizedBytes))} | ` +
      `${k(h(p.b1.messages))} / ${mb(h(p.b1.bytes))} \\| ${mb(h(p.b1.pumpSizedBytes))} | ` +
      `${k(h(p.b1.messages + p.b2.messages))} / ${mb(h(p.b1.bytes + p.b2.bytes))} \\| ${mb(h(p.b1.pumpSizedBytes + p.b2.bytes))} | ` +
      `${k(h(p.c.messages))} / ${mb(h(p.c.bytes))} |`,
  );
}
const byN = points.filter((q, i) => points.findIndex((o) => o.own === q.own) === i);
say("");
say("subscription request bytes (sent whole again whenever the watched set changes):");
say(
  "| N own | (a) local (filters) | (a) pump adapter (5 a token + global) | (b1) pump owner filters | (b1) as listed here | (b2) vault filters (filters) | (c) |",
);
say("|---|---|---|---|---|---|---|");
for (const p of byN)
  say(
    `| ${k(p.own)} | ${k(p.requestBytes.a)} (${p.filters.a}) | ${k(p.requestBytes.aPump)} | ${k(p.requestBytes.b1Owner)} | ` +
      `${k(p.requestBytes.b1Listed)} | ${k(p.requestBytes.b2)} (${p.filters.b2}) | ${k(p.requestBytes.c)} |`,
  );

// per trade: (a) and (b2) per own trade, (b1) and (c) per trade of any token
const sum = (f: (p: Point) => number) => points.reduce((n, p) => n + f(p), 0);
const ownTrades = sum((p) => p.ownTrades);
const allTrades = sum((p) => p.ownTrades + p.foreignTrades);
const A = sum((p) => p.a.pumpSizedBytes) / ownTrades;
const V = sum((p) => p.b2.bytes) / ownTrades;
const B = sum((p) => p.b1.pumpSizedBytes) / allTrades;
const C = sum((p) => p.c.bytes) / allTrades;
const R = rpcRead.request + rpcRead.response;
say("");
say(
  `per own trade: (a) ${sum((p) => p.a.messages) / ownTrades} messages, ${(sum((p) => p.a.bytes) / ownTrades).toFixed(0)} B (${A.toFixed(0)} B pump-sized); ` +
    `(b2) ${sum((p) => p.b2.messages) / ownTrades} messages, ${V.toFixed(0)} B; ` +
    `or an RPC read of the 3 vault accounts: 1 request, ${rpcRead.request} B up + ${rpcRead.response} B down`,
);
say(
  `per trade of any token: (b1) ${(sum((p) => p.b1.messages) / allTrades).toFixed(2)} messages, ` +
    `${(sum((p) => p.b1.bytes) / allTrades).toFixed(0)} B (${B.toFixed(0)} B pump-sized); (c) ${(sum((p) => p.c.messages) / allTrades).toFixed(2)} messages, ${C.toFixed(0)} B`,
);
// (b) is cheaper than (a) while (1 + m) B + X < A (+ the re-sent requests), m = foreign trades per own trade
say("");
say(
  `break-even, pump-sized: (b) cheaper than (a) while foreign trades per own trade m < the figure; ` +
    `re-sends: whole requests sent per hour (default 0.2% of N, bench:cost's launch rate; each activity also re-sends)`,
);
say(
  "| N own | re-sends/h | (a) up MB/h | b1 + vault filters: received only | with re-sends | b1 + RPC read per own trade: received only | with re-sends |",
);
say("|---|---|---|---|---|---|---|");
for (const p of byN) {
  const resends = RESENDS_PER_HOUR ?? p.own * 0.002;
  const own = p.ownTradesPerHour;
  const mVault = (A - V - B) / B;
  const mRpc = (A - R - B) / B;
  const upA = resends * p.requestBytes.aPump;
  const mVaultUp = mVault + (upA - resends * p.requestBytes.b2) / (own * B);
  const mRpcUp = mRpc + (upA - resends * p.requestBytes.b1Owner) / (own * B);
  say(
    `| ${k(p.own)} | ${k(resends)} | ${mb(upA)} | ${mVault.toFixed(2)} | ${mVaultUp.toFixed(1)} | ${mRpc.toFixed(2)} | ${mRpcUp.toFixed(1)} |`,
  );
}
if (ownerCheck)
  say(
    `\nowner filter check (owner = SPL Token): ${ownerCheck.messages} messages, ${ownerCheck.foreignOwner} of another owner; ` +
      "the pump owner filters sent with (b1) delivered nothing here (the local program owns no account)",
  );
say(`launch ${launchSeconds.toFixed(0)} s; points ${points.map((p) => p.seconds.toFixed(0)).join(", ")} s`);
