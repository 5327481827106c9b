/**
 * Helpers for the launch tests: a wallet that signs the launch message as a browser wallet does,
 * real images made with sharp, a draft, a chain stub for the steps that need no chain beyond the
 * creator address, and a real embedded local chain (manual slots) for confirm and end to end.
 */
import { createHash, createPrivateKey, sign } from "node:crypto";
import { type Keypair, PublicKey, TransactionInstruction, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import sharp from "sharp";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { pumpLaunchOps } from "../../src/chain/pump";
import { createRpcChain } from "../../src/chain/rpc";
import type { ChainServices } from "../../src/chain/services";
import type { TestService } from "../helpers/service";
import { fakeChain } from "../fakes/chain";
import { localLaunchProgram } from "../../src/chain/setup";

export const PUMP_PROGRAM_ID = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** What a wallet's signMessage gives back: an ed25519 signature of the UTF-8 bytes, base58. */
export function signMessage(wallet: Keypair, message: string): string {
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(wallet.secretKey.slice(0, 32))]),
    format: "der",
    type: "pkcs8",
  });
  return bs58.encode(sign(null, new TextEncoder().encode(message), key));
}

export const sha256hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export async function png(width = 64, height = 64, rgb = { r: 200, g: 40, b: 90 }): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: rgb } })
      .png()
      .toBuffer(),
  );
}

export function draft(overrides: Record<string, unknown> = {}) {
  return {
    name: "Split Coin",
    symbol: "SPLIT",
    description: "Fees go to the people named here.",
    website: "https://example.com/split",
    twitter: null,
    telegram: null,
    recipients: [
      { handle: "@Alice_1", bps: 6000 },
      { handle: "bob", bps: 4000 },
    ],
    firstBuyLamports: "0",
    ...overrides,
  };
}

const SECRET = new Uint8Array(32).fill(7);

/**
 * A chain that answers only what intent and metadata need: the creator address (the real
 * derivation), "is this mint on chain", a blockhash, and a create builder.
 */
export function stubChain(
  options: { mintsOnChain?: string[]; bonded?: Set<string>; vaultsDown?: () => boolean } = {},
): ChainServices {
  const creatorKeypair = (i: number) => deriveCreatorKeypair(SECRET, i);
  const blockhash = bs58.encode(new Uint8Array(32).fill(3));
  return fakeChain({
    usedBy: "the launch steps before confirm",
    creatorKeypair,
    reader: {
      async getAccounts(addresses) {
        return new Map(
          addresses.map((a) => [
            a,
            options.mintsOnChain?.includes(a)
              ? { lamports: 1n, owner: PUMP_PROGRAM_ID, executable: false, data: new Uint8Array() }
              : null,
          ]),
        );
      },
      async getLatestBlockhash() {
        return { blockhash, lastValidBlockHeight: 1_150n };
      },
    },
    launchProgram: {
      kind: "pump",
      programId: PUMP_PROGRAM_ID,
      // what the relay's guard asks: pump's own reading of a transaction (pure, no chain)
      launchOps: pumpLaunchOps,
      async creatorFeeBps() {
        return 30;
      },
      async readVaults(tokens) {
        if (options.vaultsDown?.()) throw new Error("node unavailable");
        return tokens.map((t) => ({
          mint: t.mint,
          curveLamports: 0n,
          poolLamports: 0n,
          creatorLamports: 0n,
          bonded: options.bonded?.has(t.mint) ?? false,
        }));
      },
      async buildCreate(p) {
        return [
          [
            new TransactionInstruction({
              programId: new PublicKey(PUMP_PROGRAM_ID),
              keys: [
                { pubkey: new PublicKey(p.mint), isSigner: true, isWritable: true },
                { pubkey: new PublicKey(p.deployer), isSigner: true, isWritable: true },
              ],
              data: Buffer.from(p.uri),
            }),
          ],
        ];
      },
    },
  });
}

export interface LocalLaunchChain {
  local: LocalChain;
  services: ChainServices;
  stop(): Promise<void>;
}

/** The embedded local chain with a manual clock: slots move only when a test says so. */
export async function localLaunchChain(): Promise<LocalLaunchChain> {
  const local = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
  const rpc = createRpcChain({ rpcUrl: local.rpcUrl, timeoutMs: 5_000, retries: 0, allowNodeCosigners: true });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const creatorKeypair = (i: number) => deriveCreatorKeypair(secret, i);
  return {
    local,
    services: {
      reader: rpc.reader,
      sender: rpc.sender,
      launchProgram: localLaunchProgram(local, rpc.reader),
      treasury: local.treasury,
      creatorKeypair,
      creatorAddress: (i) => creatorKeypair(i).publicKey,
      rpcUrl: local.rpcUrl,
    },
    stop: () => local.stop(),
  };
}

export const jsonPost = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

export function metadataForm(parts: {
  intent: string;
  signature: string;
  image: Uint8Array | null;
  thumbnail?: Uint8Array | null;
  imageType?: string;
}): RequestInit {
  const form = new FormData();
  form.append("intent", parts.intent);
  form.append("signature", parts.signature);
  if (parts.image)
    form.append(
      "image",
      new Blob([new Uint8Array(parts.image)], { type: parts.imageType ?? "image/png" }),
      "image.png",
    );
  if (parts.thumbnail)
    form.append("thumbnail", new Blob([new Uint8Array(parts.thumbnail)], { type: "image/png" }), "thumb.png");
  return { method: "POST", body: form };
}

/** The prepare step as the page calls it. */
export function prepare(svc: TestService, wallet: Keypair, mint: Keypair, image: Uint8Array, d: unknown = draft()) {
  return svc.json(
    "/api/launch/intent",
    jsonPost({
      draft: d,
      wallet: wallet.publicKey.toBase58(),
      mint: mint.publicKey.toBase58(),
      digest: sha256hex(image),
    }),
  );
}

/** The metadata step as the page calls it, with the wallet's signature of the intent's message. */
export function upload(
  svc: TestService,
  intent: { intent: string; message: string },
  wallet: Keypair,
  image: Uint8Array,
) {
  return svc.json(
    "/api/launch/metadata",
    metadataForm({ intent: intent.intent, signature: signMessage(wallet, intent.message), image }),
  );
}

/** Signs a returned unsigned transaction with the wallet and the mint key, as the page does. */
export function signReturned(base64: string, signers: Keypair[]): VersionedTransaction {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
  const required = new Set(
    tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).map((k) => k.toBase58()),
  );
  tx.sign(signers.filter((s) => required.has(s.publicKey.toBase58())));
  return tx;
}
