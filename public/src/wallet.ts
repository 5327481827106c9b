/**
 * Browser wallets: any wallet that registers through the Wallet Standard (Phantom, Solflare,
 * Backpack...), found with the standard's own `@wallet-standard/app`, for the launch (which signs)
 * and the claim (which only needs the address); and, on the embedded local chain, a built-in local
 * wallet whose key lives in this browser's localStorage so the whole flow works offline.
 */
import { DEPRECATED_getWallets as getWalletsWithLegacy } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import bs58 from "bs58";
import { parseTransaction, withSignature } from "./txwire";

export interface LaunchWallet {
  id: string;
  name: string;
  icon: string | null;
  address: string;
  /** ed25519 signature (64 bytes) of the message bytes */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
  /** the wire transactions with this wallet's signature added, in order (one approval in the wallet) */
  signTransactions(wires: Uint8Array[]): Promise<Uint8Array[]>;
}

/** The features this page uses, as the standard names them; each is checked before use. */
interface ConnectFeature {
  connect(): Promise<{ accounts?: readonly WalletAccount[] }>;
}
interface SignMessageFeature {
  signMessage(input: { account: WalletAccount; message: Uint8Array }): Promise<{ signature: Uint8Array }[]>;
}
interface SignTransactionFeature {
  signTransaction(
    ...inputs: { account: WalletAccount; transaction: Uint8Array; chain: string }[]
  ): Promise<{ signedTransaction: Uint8Array }[]>;
}

const feature = <T>(w: Wallet, name: string): T | null => (w.features[name as `${string}:${string}`] as T) ?? null;

let wallets: ReturnType<typeof getWalletsWithLegacy> | null = null;
/**
 * Starts listening for wallets (idempotent); wallets that loaded earlier answer the app-ready event.
 * The same API as `getWallets()`, which also takes the older registration: a wallet that pushes a
 * callback onto `navigator.wallets` (before the page's code runs, or after: the array is replaced
 * by an object whose `push` registers at once). It must be the first call into the package: once
 * `getWallets()` ran, it answers without reading `navigator.wallets`.
 */
export function discoverWallets(): void {
  wallets ??= getWalletsWithLegacy();
}

export function onWalletsChanged(fn: () => void): () => void {
  discoverWallets();
  const offRegister = wallets!.on("register", fn);
  const offUnregister = wallets!.on("unregister", fn);
  return () => {
    offRegister();
    offUnregister();
  };
}

const onSolana = (w: Wallet) => w.chains.some((c) => c.startsWith("solana:"));
const safeIcon = (w: Wallet) => (typeof w.icon === "string" && w.icon.startsWith("data:image/") ? w.icon : null);

/** What a claim needs from a wallet: its name and the address it shares on connecting. */
export interface ConnectableWallet {
  name: string;
  icon: string | null;
  /** the first Solana account the wallet shares */
  connect(): Promise<string>;
}

async function connectAccount(w: Wallet): Promise<WalletAccount> {
  const { accounts } = await feature<ConnectFeature>(w, "standard:connect")!.connect();
  const account =
    (accounts ?? []).find((a) => a.chains.some((c) => c.startsWith("solana:"))) ??
    accounts?.[0] ??
    w.accounts.find((a) => a.chains.some((c) => c.startsWith("solana:"))) ??
    w.accounts[0];
  if (!account) throw new Error(`${w.name} did not share an account.`);
  return account;
}

/** Wallets that can share a Solana address (enough to claim to). */
export function addressWallets(): ConnectableWallet[] {
  discoverWallets();
  return wallets!
    .get()
    .filter((w) => onSolana(w) && feature(w, "standard:connect"))
    .map((w) => ({
      name: w.name,
      icon: safeIcon(w),
      connect: async () => (await connectAccount(w)).address,
    }));
}

/** Wallets that can also sign the launch's message and transactions. */
export function standardWallets(): { name: string; icon: string | null; connect: () => Promise<LaunchWallet> }[] {
  discoverWallets();
  return wallets!
    .get()
    .filter(
      (w) =>
        onSolana(w) &&
        feature(w, "standard:connect") &&
        feature(w, "solana:signMessage") &&
        feature(w, "solana:signTransaction"),
    )
    .map((w) => ({
      name: w.name,
      icon: safeIcon(w),
      connect: async () => {
        const account = await connectAccount(w);
        const chain = account.chains.find((c) => c.startsWith("solana:")) ?? "solana:mainnet";
        return {
          id: `std:${w.name}`,
          name: w.name,
          icon: safeIcon(w),
          address: account.address,
          async signMessage(message) {
            const [out] = await feature<SignMessageFeature>(w, "solana:signMessage")!.signMessage({ account, message });
            return new Uint8Array(out!.signature);
          },
          async signTransactions(transactions) {
            const outputs = await feature<SignTransactionFeature>(w, "solana:signTransaction")!.signTransaction(
              ...transactions.map((transaction) => ({ account, transaction, chain })),
            );
            return outputs.map((o) => new Uint8Array(o.signedTransaction));
          },
        };
      },
    }));
}

/** Where to get a wallet when this browser has none. */
export const WALLET_SITES: [string, string][] = [
  ["Phantom", "https://phantom.com/download"],
  ["Solflare", "https://solflare.com/download"],
  ["Backpack", "https://backpack.app/download"],
];

/** An ed25519 key held by WebCrypto; its private part is stored as JWK in localStorage. */
export class LocalKey {
  private constructor(
    readonly privateKey: CryptoKey,
    readonly address: string,
  ) {}

  static async generate(): Promise<{ key: LocalKey; jwk: JsonWebKey }> {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    return { key: await LocalKey.fromJwk(jwk), jwk };
  }

  static async fromJwk(jwk: JsonWebKey): Promise<LocalKey> {
    const privateKey = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, true, ["sign"]);
    const x = jwk.x!;
    const raw = Uint8Array.from(
      atob(x.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (x.length % 4)) % 4)),
      (c) => c.charCodeAt(0),
    );
    return new LocalKey(privateKey, bs58.encode(raw));
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, this.privateKey, message as BufferSource));
  }

  /** Adds this key's signature to a wire transaction (it must be one of the signers). */
  async signTransaction(wire: Uint8Array): Promise<Uint8Array> {
    return withSignature(wire, this.address, await this.sign(parseTransaction(wire).message));
  }
}

const LOCAL_WALLET_KEY = "localWallet.v1";

export async function localWallet(): Promise<LaunchWallet> {
  if (!crypto.subtle) throw new Error("The local wallet needs a secure page (https or localhost).");
  let key: LocalKey;
  const stored = localStorage.getItem(LOCAL_WALLET_KEY);
  if (stored) key = await LocalKey.fromJwk(JSON.parse(stored) as JsonWebKey);
  else {
    const made = await LocalKey.generate();
    localStorage.setItem(LOCAL_WALLET_KEY, JSON.stringify(made.jwk));
    key = made.key;
  }
  return {
    id: "local",
    name: "Local wallet",
    icon: null,
    address: key.address,
    signMessage: (message) => key.sign(message),
    signTransactions: (wires) => Promise.all(wires.map((wire) => key.signTransaction(wire))),
  };
}
