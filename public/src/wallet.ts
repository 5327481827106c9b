/**
 * Wallets for the launch: any browser wallet that registers through the Wallet Standard
 * (Phantom, Solflare, Backpack...) and, on the embedded local chain, a built-in local wallet whose
 * key lives in this browser's localStorage so the whole flow works offline.
 */
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

/** Minimal Wallet Standard shapes (the standard's own types would add a dependency for nothing). */
interface StdAccount {
  address: string;
  publicKey: Uint8Array;
  chains: readonly string[];
  features: readonly string[];
}
interface StdWallet {
  name: string;
  icon: string;
  chains: readonly string[];
  accounts: readonly StdAccount[];
  /** what a usable wallet offers; any wallet may offer more or less, so each is checked before use */
  features: Partial<StdFeatures>;
}
interface StdFeatures {
  "standard:connect": { connect(): Promise<{ accounts?: readonly StdAccount[] }> };
  "solana:signMessage": {
    signMessage(input: { account: StdAccount; message: Uint8Array }): Promise<{ signature: Uint8Array }[]>;
  };
  "solana:signTransaction": {
    signTransaction(
      ...inputs: { account: StdAccount; transaction: Uint8Array; chain: string }[]
    ): Promise<{ signedTransaction: Uint8Array }[]>;
  };
}

const registered = new Set<StdWallet>();
const listeners = new Set<() => void>();

function register(...wallets: StdWallet[]): () => void {
  for (const w of wallets) registered.add(w);
  for (const l of listeners) l();
  return () => {
    for (const w of wallets) registered.delete(w);
    for (const l of listeners) l();
  };
}

let started = false;
/** Starts listening for wallets (idempotent). Wallets that loaded earlier answer app-ready. */
export function discoverWallets(): void {
  if (started) return;
  started = true;
  const api = Object.freeze({ register });
  window.addEventListener("wallet-standard:register-wallet", ((event: CustomEvent) => {
    try {
      event.detail(api);
    } catch {
      // A misbehaving wallet must not break the page.
    }
  }) as EventListener);
  window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: api }));
}

export function onWalletsChanged(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function usable(w: StdWallet): boolean {
  return Boolean(
    w.features["standard:connect"] &&
      w.features["solana:signMessage"] &&
      w.features["solana:signTransaction"] &&
      w.chains.some((c) => c.startsWith("solana:")),
  );
}

export function standardWallets(): { name: string; icon: string | null; connect: () => Promise<LaunchWallet> }[] {
  return [...registered].filter(usable).map((w) => ({
    name: w.name,
    icon: typeof w.icon === "string" && w.icon.startsWith("data:image/") ? w.icon : null,
    connect: async () => {
      const { accounts } = await w.features["standard:connect"]!.connect();
      const account: StdAccount | undefined = accounts?.[0] ?? w.accounts[0];
      if (!account) throw new Error(`${w.name} did not share an account.`);
      const chain = account.chains.find((c) => c.startsWith("solana:")) ?? "solana:mainnet";
      return {
        id: `std:${w.name}`,
        name: w.name,
        icon: typeof w.icon === "string" && w.icon.startsWith("data:image/") ? w.icon : null,
        address: account.address,
        async signMessage(message) {
          const [out] = await w.features["solana:signMessage"]!.signMessage({ account, message });
          return new Uint8Array(out!.signature);
        },
        async signTransactions(transactions) {
          const outputs = await w.features["solana:signTransaction"]!.signTransaction(
            ...transactions.map((transaction) => ({ account, transaction, chain })),
          );
          return outputs.map((o) => new Uint8Array(o.signedTransaction));
        },
      };
    },
  }));
}

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
