/**
 * A loopback stand-in for the service's API, serving the real page bundle (src/web) and
 * SPEC-shaped fixtures, so the page can be tested in a browser before (and apart from) the real
 * routes. It records every API request and can be told to answer 429 or an error next.
 */
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { PAGE_PATHS, pageHtml, webBundle } from "../../src/web";
import { verifyEd25519 as verifySignature } from "./ed25519";
import * as fx from "./fixtures";
import { fakeLiabilities } from "./fake-liabilities";
import type { Json } from "../helpers/service";

export interface Recorded {
  method: string;
  path: string;
  search: URLSearchParams;
  body: unknown;
}

export interface Override {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** how many answers this override gives before the fixtures take over again */
  times: number;
}

const MEMO = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const pagePatterns = PAGE_PATHS.map((p) => new RegExp(`^${p.replace(/:\w+/g, "[^/]+")}/?$`));

export class FakeApi {
  readonly requests: Recorded[] = [];
  readonly overrides = new Map<string, Override>();
  readonly now = Date.now();
  readonly tokens = fx.makeTokens(this.now);
  server: ReturnType<typeof Bun.serve> | null = null;
  /** the signed-in state of the one fake session */
  signedInAs: string | null = null;
  payouts: Json[] = [];
  balance = 2_000_000_000n;
  claimsPaused = false;
  /** EXPLORER_URL as a real chain's deployment has it; null is the local chain */
  explorerUrl: string | null = "https://solscan.io/{kind}/{id}";
  /** SOL's price in USD the page is served with (the market source's); null when none is known */
  solUsd: number | null = null;
  /** SPEC's `idpConfigured`: sign-in with X is set up on this deployment */
  idpConfigured = true;
  /** the embedded local chain (dev login on, the local genesis hash); false is a real chain */
  localChain = true;
  /** what the first page of /api/ledger answers; the fixtures when null */
  ledgerEvents: Json[] | null = null;
  /** what /api/cron/health answers */
  health: (now: number) => unknown = fx.health;
  /** transactions the page sent through /api/rpc, with their signatures checked */
  sent: { signers: string[]; allSigned: boolean }[] = [];
  private confirmCalls = 0;
  private intentMint = "";

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  async start(): Promise<this> {
    await webBundle();
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => this.handle(request) });
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
  }

  /** The next `times` requests to `path` (no query) answer with this instead. */
  override(path: string, o: Partial<Override> & { status: number }): void {
    this.overrides.set(path, { body: { error: "Fake failure." }, times: 1, ...o });
  }

  /** open /api/ledger/stream connections */
  readonly ledgerStreams = new Set<ReadableStreamDefaultController<Uint8Array>>();

  /** Sends one ledger event to every open stream, as the service's SSE frame (its data carries the id too). */
  pushLedgerEvent(id: string, event: { type: string }): void {
    const data = JSON.stringify({ ...event, id });
    const frame = new TextEncoder().encode(`id: ${id}\nevent: ${event.type}\ndata: ${data}\n\n`);
    for (const c of this.ledgerStreams) c.enqueue(frame);
  }

  apiCalls(path: string): Recorded[] {
    return this.requests.filter((r) => r.path === path);
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (!path.startsWith("/api/")) {
      const bundle = await webBundle();
      const html = pageHtml(bundle, this.explorerUrl, this.solUsd);
      if (pagePatterns.some((p) => p.test(path)))
        return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
      const asset = bundle.assets.get(path);
      if (asset) return new Response(asset.body as BodyInit, { headers: { "content-type": asset.type } });
      if (path.startsWith("/assets/")) return Response.json({ error: "No such route." }, { status: 404 });
      // As src/web does: a mistyped page path gets the page, which shows its not-found view.
      return new Response(html, { status: 404, headers: { "content-type": "text/html; charset=utf-8" } });
    }
    let body: unknown = null;
    if (request.method === "POST") {
      const type = request.headers.get("content-type") ?? "";
      if (type.includes("application/json")) body = await request.json();
      else if (type.includes("multipart/form-data")) body = Object.fromEntries((await request.formData()).entries());
    }
    this.requests.push({ method: request.method, path, search: url.searchParams, body });
    const o = this.overrides.get(path);
    if (o) {
      if (--o.times <= 0) this.overrides.delete(path);
      return Response.json(o.body, { status: o.status, headers: o.headers });
    }
    return this.route(request.method, path, url.searchParams, body);
  }

  private route(method: string, path: string, q: URLSearchParams, body: Json): Response | Promise<Response> {
    const json = (value: unknown, status = 200) => Response.json(value, { status });
    const notFound = (message: string) => json({ error: message }, 404);
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/api/tokens") {
      // As src/tokens does: "$TICKER" is the ticker, four or more characters may start a mint.
      const raw = (q.get("q") ?? "").replace(/^\$(?=.)/, "");
      const needle = raw.toLowerCase().replace(/^@/, "");
      let list = fx.sortTokens(this.tokens, q.get("sort") ?? "new");
      if (needle) {
        list = list.filter(
          (t) =>
            t.mint === raw ||
            (raw.length >= 4 && t.mint.startsWith(raw)) ||
            t.creator === raw ||
            t.name.toLowerCase().includes(needle) ||
            t.symbol.toLowerCase().includes(needle) ||
            t.recipients.some((r) => r.handle === needle),
        );
      }
      const start = Number(q.get("cursor") ?? "0");
      const limit = Number(q.get("limit") ?? "24");
      const page = list.slice(start, start + limit);
      return json({ tokens: page, nextCursor: start + limit < list.length ? String(start + limit) : null });
    }
    m = method === "GET" ? /^\/api\/token-images\/([^/]+)$/.exec(path) : null;
    if (m) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#${m[1]!.length % 2 ? "c6f" : "6cf"}"/></svg>`;
      return new Response(svg, { headers: { "content-type": "image/svg+xml" } });
    }
    m = method === "GET" ? /^\/api\/tokens\/([^/]+)$/.exec(path) : null;
    if (m) {
      const token = this.tokens.find((t) => t.mint === decodeURIComponent(m![1]!));
      return token ? json(fx.tokenDetail(token, this.now)) : notFound("No token with that mint was launched here.");
    }
    m = method === "GET" ? /^\/api\/idp\/@?([^/]+)$/.exec(path) : null;
    if (m) {
      const handle = decodeURIComponent(m[1]!).toLowerCase();
      if (handle === "alice") return json(fx.account("Alice", this.tokens[0]!, true));
      if (handle === "bob_unclaimed") return json(fx.account("bob_unclaimed", this.tokens[0]!, false));
      return notFound("No token launched here names this handle yet.");
    }
    if (method === "GET" && path === "/api/stats") return json(fx.STATS);
    if (method === "GET" && path === "/api/cron/health") return json(this.health(this.now));
    if (method === "GET" && path === "/api/proof") return json(fx.PROOF);
    if (method === "GET" && path === "/api/ledger/stream") {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
          c.enqueue(new TextEncoder().encode("retry: 500\n\n"));
          this.ledgerStreams.add(c);
        },
        cancel: () => void this.ledgerStreams.delete(controller),
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-store" } });
    }
    if (method === "GET" && path === "/api/ledger") {
      return json(
        q.get("before")
          ? { events: [], nextBefore: null }
          : {
              events: this.ledgerEvents ?? fx.ledger(this.now, this.tokens),
              nextBefore: "2026-01-01T00:00:00.000001Z",
            },
      );
    }
    if (method === "GET" && path === "/api/me") return json(this.me());
    if (method === "GET" && path === "/api/proof/liabilities")
      return json(fakeLiabilities(this.balance, this.now).published);
    if (method === "GET" && path === "/api/me/proof") {
      if (!this.signedInAs) return json({ error: "Sign in first." }, 401);
      const { proof } = fakeLiabilities(this.balance, this.now);
      return proof ? json(proof) : notFound("Your account was owed nothing at that snapshot, so it has no leaf in it.");
    }
    if (method === "POST" && path === "/api/auth/dev-login") {
      this.signedInAs = String(body?.handle ?? "");
      return json({ ok: true, idpUserId: `dev-${this.signedInAs}`, handle: this.signedInAs });
    }
    if (method === "POST" && path === "/api/auth/logout") {
      this.signedInAs = null;
      return json({ ok: true });
    }
    if (method === "POST" && path === "/api/claim") {
      if (!this.signedInAs) return json({ error: "Sign in first." }, 401);
      const lamports = body?.lamports === undefined ? this.balance : BigInt(body.lamports);
      if (lamports > this.balance) return json({ error: "The amount is above your balance." }, 400);
      this.balance -= lamports;
      const payout = {
        id: this.payouts.length + 10,
        lamports: lamports.toString(),
        wallet: body.wallet,
        kind: "claim",
        status: "queued",
        signature: null,
        createdAt: new Date().toISOString(),
        confirmedAt: null,
        reads: 0,
      };
      this.payouts.unshift(payout);
      return json({ payoutId: payout.id, lamports: payout.lamports, status: "queued" });
    }
    if (method === "POST" && path === "/api/routing") {
      return json({
        ok: true,
        routing: body.routing,
        payoutWallet: body.wallet ?? null,
        declined: body.declined ?? false,
      });
    }
    if (method === "GET" && path === "/api/launch/config") return json(fx.LAUNCH_CONFIG);
    if (method === "POST" && path === "/api/launch/intent") {
      this.intentMint = body.mint;
      return json({
        intent: "intent-1",
        mint: body.mint,
        wallet: body.wallet,
        creator: fx.WALLET,
        platformBps: 1000,
        message: `Launch ${body.mint}`,
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
      });
    }
    if (method === "POST" && path === "/api/launch/metadata") return this.metadata(body);
    if (method === "POST" && path === "/api/launch/confirm") {
      this.confirmCalls++;
      if (this.confirmCalls < 2)
        return json({ status: "pending", intent: body.intent, signature: body.signature }, 202);
      // Recorded as drafted, as the service does: the page goes to the token once it is confirmed.
      let launched = this.tokens.find((t) => t.mint === this.intentMint);
      if (!launched) {
        const draft = this.apiCalls("/api/launch/intent").at(-1)!.body as Json;
        launched = { ...this.tokens[1]!, mint: this.intentMint, name: draft.draft.name, symbol: draft.draft.symbol };
        this.tokens.push(launched);
      }
      const detail = fx.tokenDetail(launched, this.now);
      return json({ status: "confirmed", intent: body.intent, signature: body.signature, token: detail });
    }
    if (method === "POST" && path === "/api/rpc") return json(this.rpc(body));
    // The history reads (issue 20): empty histories, as a fresh service answers.
    if (method === "GET" && /^\/api\/tokens\/[^/]+\/history$/.test(path)) return json({ points: [] });
    if (method === "GET" && path === "/api/proof/history") return json({ points: [] });
    if (method === "GET" && /^\/api\/idp\/[^/]+\/history$/.test(path)) return json({ entries: [] });
    return notFound("No such route.");
  }

  private me() {
    if (!this.signedInAs) return { signedIn: false, idpConfigured: this.idpConfigured, devLogin: this.localChain };
    // Each read moves a payout one state on, as the payout job would between reads.
    for (const p of this.payouts) {
      p.reads++;
      if (p.status === "queued" && p.reads >= 2) {
        p.status = "sent";
        p.signature = "7".repeat(87);
      } else if (p.status === "sent" && p.reads >= 3) {
        p.status = "confirmed";
        p.confirmedAt = new Date().toISOString();
      }
    }
    const account = fx.account(this.signedInAs, this.tokens[0]!, true);
    const paid = this.payouts.reduce((a, p) => a + BigInt(p.lamports), 0n);
    return {
      ...account,
      signedIn: true,
      idpConfigured: this.idpConfigured,
      devLogin: this.localChain,
      idpUserId: `dev-${this.signedInAs}`,
      routing: "hold",
      payoutWallet: null,
      handles: [this.signedInAs],
      balanceLamports: this.balance.toString(),
      paidLamports: (1_000_000_000n + paid).toString(),
      payouts: [...this.payouts.map(({ reads: _r, ...p }) => p), ...account.payouts],
      minClaimLamports: "10000000",
      autopayMinLamports: "10000000",
      claimsPaused: this.claimsPaused,
    };
  }

  private async metadata(body: Json): Promise<Response> {
    const intentWallet = this.requests.findLast((r) => r.path === "/api/launch/intent")?.body as Json;
    const signature = bs58.decode(String(body.signature));
    const message = new TextEncoder().encode(`Launch ${intentWallet.mint}`);
    if (!verifySignature(new PublicKey(intentWallet.wallet).toBytes(), message, signature)) {
      return Response.json({ error: "The message signature does not match the wallet." }, { status: 401 });
    }
    if (!(body.image instanceof Blob) || !(body.thumbnail instanceof Blob))
      return Response.json({ error: "Send the image and thumbnail." }, { status: 400 });
    // A create that needs the wallet and the mint to sign, like the real one.
    const wallet = new PublicKey(intentWallet.wallet);
    const mint = new PublicKey(intentWallet.mint);
    const ix = new TransactionInstruction({
      programId: MEMO,
      keys: [{ pubkey: mint, isSigner: true, isWritable: true }],
      data: Buffer.from("create"),
    });
    const message0 = new TransactionMessage({
      payerKey: wallet,
      recentBlockhash: bs58.encode(new Uint8Array(32).fill(9)),
      instructions: [ix],
    }).compileToV0Message();
    const tx = Buffer.from(new VersionedTransaction(message0).serialize()).toString("base64");
    return Response.json({
      intent: "intent-1",
      mint: mint.toBase58(),
      creator: fx.WALLET,
      metadataUri: "https://example.com/m.json",
      imageUri: "https://example.com/i.png",
      transactions: [tx],
      lastValidBlockHeight: "1000",
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    });
  }

  private rpc(body: Json): unknown {
    const answer = (result: unknown) => ({ jsonrpc: "2.0", id: body.id, result });
    switch (body.method) {
      case "getGenesisHash":
        return answer(
          this.localChain
            ? "LocaLChain1111111111111111111111111111111111"
            : "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
        );
      case "getBalance":
        return answer({ context: { slot: 1 }, value: 0 });
      case "requestAirdrop":
        return answer("8".repeat(87));
      case "getSignatureStatuses":
        return answer({
          context: { slot: 1 },
          value: body.params[0].map(() => ({
            slot: 1,
            confirmations: null,
            err: null,
            confirmationStatus: "confirmed",
          })),
        });
      case "sendTransaction": {
        const tx = VersionedTransaction.deserialize(Buffer.from(body.params[0], "base64"));
        const bytes = tx.message.serialize();
        const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures);
        const allSigned = signers.every((k, i) => verifySignature(k.toBytes(), bytes, tx.signatures[i]!));
        this.sent.push({ signers: signers.map((k) => k.toBase58()), allSigned });
        if (!allSigned)
          return {
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32003, message: "Transaction signature verification failure" },
          };
        return answer(bs58.encode(tx.signatures[0]!));
      }
      default:
        return { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } };
    }
  }
}
