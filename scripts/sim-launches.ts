/**
 * The launch side of the seeded simulation (scripts/sim.ts): people launching tokens through the
 * real launch service (prepare, metadata, confirm) while the `launches` job settles what the page
 * left behind, all under the same fault schedule as the money jobs.
 *
 * The page is modelled as it behaves (public/src/pages/launch.ts): the wallet signs the create (and
 * the first buy) and sends the create; the page polls confirm with that signature and sends the
 * first buy once, after confirm said `confirmed`. A page may also go away at any point, ask for the
 * transaction again (a lost answer) and send that one too, or have its wallet rebroadcast.
 *
 * What a wrong outcome of the launch side would be, checked after every step against the node:
 * - a token recorded for a create that did not land, or did not create that mint with our creator
 *   (its fees would be credited from a vault that is not ours);
 * - an intent `confirmed` without its token, or a mint recorded twice;
 * - an intent `expired` or `failed` while its mint was created on chain by one of its transactions
 *   (the token would never be recorded and its fees never swept);
 * - a first buy that landed twice for one mint (the page was told `confirmed` twice, or wrongly).
 * Once faults clear and the windows pass, every intent is terminal and every landed launch recorded.
 */
import { createPrivateKey, sign } from "node:crypto";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { Db } from "../db/client";
import type { LocalNode } from "@fee-ledger/localnet";
import type { AppContext } from "../src/context";
import { confirmLaunch, prepareLaunch, uploadMetadata } from "../src/launches";
import { isAppError } from "../src/lib/errors";

export class SimInvariantViolation extends Error {
  override readonly name = "InvariantViolation";
}

/** What the launch actor needs from the world it runs in. */
export interface LaunchWorld {
  readonly node: LocalNode;
  readonly db: Db;
  readonly ctx: AppContext;
  readonly launchers: readonly Keypair[];
  pick<T>(list: readonly T[]): T;
  int(lo: number, hi: number): number;
  rand(): number;
  bytes(): Uint8Array;
  handles(): string[];
}

interface SimLaunch {
  n: number;
  intent: string;
  mint: Keypair;
  launcher: Keypair;
  /** every create signature any wallet sent for this intent, in order */
  creates: string[];
  /** the signature the page polls confirm with (its last create), and that create's bytes */
  polled: string | null;
  createWire: Uint8Array | null;
  /** the launch message the wallet signs (fixed per intent) */
  message: string;
  buyWire: Uint8Array | null;
  buys: string[];
  pageOpen: boolean;
}

interface IntentRow {
  id: string;
  status: string;
  signature: string | null;
}
interface TokenRow {
  mint: string;
  creator: string;
  launchSignature: string;
}

/** A tiny valid PNG, made once: the metadata step checks the image and makes its preview. */
let imageBytes: Uint8Array | null = null;
async function image(): Promise<Uint8Array> {
  if (imageBytes) return imageBytes;
  const { default: sharp } = await import("sharp");
  imageBytes = new Uint8Array(
    await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 20, g: 120, b: 90 } } })
      .png()
      .toBuffer(),
  );
  return imageBytes;
}

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** What a wallet's signMessage gives back: an ed25519 signature of the UTF-8 bytes, base58. */
function walletSignature(wallet: Keypair, message: string): string {
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(wallet.secretKey.slice(0, 32))]),
    format: "der",
    type: "pkcs8",
  });
  return bs58.encode(sign(null, new TextEncoder().encode(message), key));
}

export function describeError(error: unknown): string {
  if (isAppError(error)) return error.code;
  return error instanceof Error ? error.name : String(error);
}

const MAX_LAUNCHES = 4;

export class SimLaunches {
  readonly launches: SimLaunch[] = [];

  constructor(private readonly w: LaunchWorld) {}

  /** One launch-side user action, chosen by the seed. */
  async act(): Promise<string> {
    const open = this.launches.filter((l) => l.pageOpen);
    const r = this.w.rand();
    if (open.length === 0 || (r < 0.35 && this.launches.length < MAX_LAUNCHES)) return this.start();
    const l = this.w.pick(open);
    if (r < 0.7) return this.poll(l);
    if (r < 0.8) return this.again(l);
    if (r < 0.9) return this.rebroadcast(l);
    l.pageOpen = false;
    return `launch ${l.n} page closed`;
  }

  private async start(): Promise<string> {
    const w = this.w;
    if (this.launches.length >= MAX_LAUNCHES) return "launch none (enough launches)";
    const n = this.launches.length;
    const mint = Keypair.fromSeed(w.bytes());
    const launcher = w.pick(w.launchers);
    const png = await image();
    const handles = w.handles();
    const a = w.pick(handles);
    const b = w.pick(handles.filter((h) => h !== a));
    const split = w.rand() < 0.5;
    const draft = {
      name: `Launch ${n}`,
      symbol: `L${n}`,
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      recipients: split
        ? [
            { handle: a, bps: 7000 },
            { handle: b, bps: 3000 },
          ]
        : [{ handle: a, bps: 10_000 }],
      firstBuyLamports: w.pick(["0", "10000000", "500000000"]),
    };
    let intent: string;
    let message: string;
    try {
      const digest = new Bun.CryptoHasher("sha256").update(png).digest("hex");
      const r = await prepareLaunch(w.ctx, {
        draft,
        wallet: launcher.publicKey.toBase58(),
        mint: mint.publicKey.toBase58(),
        digest,
      });
      intent = r.intent;
      message = r.message;
    } catch (error) {
      return `launch ${n} prepare -> ${describeError(error)}`;
    }
    const l: SimLaunch = {
      n,
      intent,
      mint,
      launcher,
      creates: [],
      polled: null,
      createWire: null,
      message,
      buyWire: null,
      buys: [],
      pageOpen: true,
    };
    this.launches.push(l);
    // Some people stop after prepare: the intent must simply expire.
    if (w.rand() < 0.15) {
      l.pageOpen = false;
      return `launch ${n} prepared, abandoned`;
    }
    return `launch ${n} ${await this.metadataAndSend(l, walletSignature(launcher, message))}`;
  }

  /** The metadata step, then the wallet signs and the page sends the create (or the person walks away). */
  private async metadataAndSend(l: SimLaunch, messageSignature: string): Promise<string> {
    const w = this.w;
    let transactions: string[];
    try {
      const r = await uploadMetadata(w.ctx, {
        intent: l.intent,
        signature: messageSignature,
        image: await image(),
        thumbnail: null,
        clientKey: "sim",
      });
      transactions = r.transactions;
    } catch (error) {
      return `metadata -> ${describeError(error)}`;
    }
    // A lost answer: the page never saw these transactions; it may ask again.
    if (w.rand() < 0.1) return "metadata answer lost";
    const [create, buy] = transactions.map((t) => this.sign(l, t));
    if (!create) return "metadata -> no transaction";
    if (buy) l.buyWire = buy.wire;
    if (w.rand() < 0.1) {
      l.pageOpen = false;
      return "signed, never sent";
    }
    if (!l.creates.includes(create.signature)) l.creates.push(create.signature);
    l.polled = create.signature;
    l.createWire = create.wire;
    return `create sent -> ${this.send(create.wire)}`;
  }

  private sign(l: SimLaunch, base64: string): { wire: Uint8Array; signature: string } {
    const tx = VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
    const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures);
    tx.sign([l.launcher, l.mint].filter((k) => signers.some((s) => s.equals(k.publicKey))));
    const wire = tx.serialize();
    return { wire, signature: bs58.encode(tx.signatures[0]!) };
  }

  /** The wallet's own provider: the node's send faults (drop, delay, fail, ghost) apply to it too. */
  private send(wire: Uint8Array): string {
    try {
      this.w.node.sendWire(wire, { skipPreflight: false });
      return "ok";
    } catch (error) {
      return `refused ${describeError(error)}`;
    }
  }

  /** The page polls confirm with its create's signature; on `confirmed` it sends the first buy, once. */
  private async poll(l: SimLaunch): Promise<string> {
    if (!l.polled) return `launch ${l.n} poll -> nothing sent`;
    let outcome: string;
    try {
      const r = await confirmLaunch(this.w.ctx, { intent: l.intent, signature: l.polled });
      outcome = r.body.status;
    } catch (error) {
      outcome = describeError(error);
    }
    if (outcome === "failed") l.pageOpen = false;
    if (outcome !== "confirmed") return `launch ${l.n} poll -> ${outcome}`;
    l.pageOpen = false;
    if (!l.buyWire) return `launch ${l.n} poll -> confirmed`;
    const buy = VersionedTransaction.deserialize(l.buyWire);
    l.buys.push(bs58.encode(buy.signatures[0]!));
    const sent = this.send(l.buyWire);
    l.buyWire = null;
    return `launch ${l.n} poll -> confirmed, first buy ${sent}`;
  }

  /**
   * The page asks for the transaction again, as the service allows it: after a lost answer (it
   * never had one) or once its create's blockhash is dead (a stale transaction can never land).
   */
  private async again(l: SimLaunch): Promise<string> {
    if (l.createWire) {
      const sent = VersionedTransaction.deserialize(l.createWire);
      if (this.w.node.isBlockhashValid(sent.message.recentBlockhash)) return `launch ${l.n} again -> still valid`;
    }
    return `launch ${l.n} again ${await this.metadataAndSend(l, walletSignature(l.launcher, l.message))}`;
  }

  /** The wallet sends the same bytes again (harmless by design). */
  private rebroadcast(l: SimLaunch): string {
    if (!l.createWire) return `launch ${l.n} rebroadcast -> nothing sent`;
    return `launch ${l.n} rebroadcast -> ${this.send(l.createWire)}`;
  }

  /**
   * What the indexer's stream shows for launches: landed transactions that touch the mint of an
   * intent still waiting (`metadata`), which it resolves through settleIntent.
   */
  streamed(): { intent: string; signature: string }[] {
    const c = this.w.db.$client;
    const waiting = c.query<{ status: string }, [string]>("SELECT status FROM launch_intents WHERE id = ?");
    return this.launches.flatMap((l) =>
      waiting.get(l.intent)?.status === "metadata"
        ? l.creates
            .filter((s) => this.w.node.getTransaction(s) !== null)
            .map((s) => ({ intent: l.intent, signature: s }))
        : [],
    );
  }

  // ------------------------------------------------------------------ invariants

  /** Checked after every step. `final`: faults cleared and windows passed, so everything is decided. */
  check(final: boolean): void {
    const c = this.w.db.$client;
    const intentOf = c.query<IntentRow, [string]>("SELECT id, status, signature FROM launch_intents WHERE id = ?");
    const tokenOf = c.query<TokenRow, [string]>(
      "SELECT mint, creator, launch_signature AS launchSignature FROM tokens WHERE mint = ?",
    );
    for (const l of this.launches) {
      const mint = l.mint.publicKey.toBase58();
      const intent = intentOf.get(l.intent);
      if (!intent) throw new SimInvariantViolation(`launch ${l.n}: its intent is gone`);
      const token = tokenOf.get(mint);
      const createdBy = this.createdBy(l);
      if (token) this.checkRecorded(l, token, createdBy);
      if (intent.status === "confirmed" && !token)
        throw new SimInvariantViolation(`launch ${l.n}: intent confirmed, no token recorded`);
      if ((intent.status === "expired" || intent.status === "failed") && createdBy)
        throw new SimInvariantViolation(`launch ${l.n}: intent ${intent.status} but its create ${createdBy} landed`);
      const boughtTimes = l.buys.filter((s) => this.landedOk(s)).length;
      if (boughtTimes > 1) throw new SimInvariantViolation(`launch ${l.n}: first buy landed ${boughtTimes} times`);
      if (!final) continue;
      if (intent.status !== "confirmed" && intent.status !== "failed" && intent.status !== "expired")
        throw new SimInvariantViolation(`launch ${l.n}: intent still ${intent.status} after the faults cleared`);
      if (createdBy && !token)
        throw new SimInvariantViolation(`launch ${l.n}: created on chain by ${createdBy} but never recorded`);
    }
  }

  private checkRecorded(l: SimLaunch, token: TokenRow, createdBy: string | null): void {
    if (!createdBy || token.launchSignature !== createdBy)
      throw new SimInvariantViolation(`launch ${l.n}: recorded with ${token.launchSignature}, created by ${createdBy}`);
    if (this.w.node.creatorOf(token.mint) !== token.creator)
      throw new SimInvariantViolation(`launch ${l.n}: recorded creator is not the mint's creator on chain`);
  }

  /** The one create of this launch that landed and created the mint, if any. */
  private createdBy(l: SimLaunch): string | null {
    const ok = l.creates.filter((s) => this.landedOk(s));
    if (ok.length > 1) throw new SimInvariantViolation(`launch ${l.n}: two creates of one mint landed`);
    return ok[0] ?? null;
  }

  private landedOk(signature: string): boolean {
    const r = this.w.node.getTransaction(signature);
    return r !== null && r.err === null;
  }
}
