/** SPEC's response shapes, as far as the page reads them (unknown fields are ignored). */
export interface Recipient {
  handle: string;
  displayHandle: string;
  bps: number;
  name: string;
  avatarUrl: string;
  claimed: boolean;
  routing: Routing | null;
  declined: boolean;
  creditedLamports: string;
}
export type Routing = "hold" | "autopay" | "burn";

export interface Token {
  mint: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  creator: string;
  deployer: string;
  launchedAt: string;
  recipients: Recipient[];
  platformBps: number;
  sweptLamports: string;
  vaultLamports: string;
  vaultCheckedAt: string;
  bonded: boolean;
  marketCapUsd: number | null;
  volume24hUsd: number | null;
  lastSweptAt: string | null;
}

export interface Sweep {
  id: number;
  mint: string;
  symbol: string;
  signature: string;
  status: string;
  totalLamports: string;
  platformLamports: string;
  createdAt: string;
  confirmedAt: string | null;
}

export interface TokenDetail extends Token {
  description: string;
  website: string | null;
  twitter: string | null;
  telegram: string | null;
  metadataUri: string;
  launchSignature: string;
  creatorVault: string;
  sweeps: Sweep[];
}

export interface Payout {
  id: number;
  lamports: string;
  wallet: string;
  kind: "claim" | "autopay";
  status: string;
  signature?: string | null;
  createdAt: string;
  confirmedAt?: string | null;
}

export interface AccountToken {
  mint: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  bps: number;
  creditedLamports: string;
}

export interface AccountRecord {
  handle: string;
  displayHandle: string;
  name: string;
  avatarUrl: string;
  followers: number;
  claimed: boolean;
  routing: Routing | null;
  declined: boolean;
  creditedLamports: string;
  paidLamports: string;
  burnedLamports: string;
  balanceLamports: string;
  tokens: AccountToken[];
  payouts: Payout[];
}

export type Me =
  | { signedIn: false; idpConfigured: boolean; devLogin: boolean }
  | ({
      signedIn: true;
      idpConfigured: boolean;
      devLogin: boolean;
      idpUserId: string;
      handle: string;
      displayHandle: string;
      name: string;
      avatarUrl: string;
      routing: Routing;
      payoutWallet: string | null;
      declined: boolean;
      creditedLamports: string;
      paidLamports: string;
      burnedLamports: string;
      balanceLamports: string;
      handles: string[];
      tokens: AccountToken[];
      payouts: Payout[];
      minClaimLamports: string;
      autopayMinLamports: string;
      claimsPaused: boolean;
    });
export type SignedInMe = Extract<Me, { signedIn: true }>;

export interface Stats {
  tokens: number;
  recipients: number;
  claimedAccounts: number;
  sweptLamports: string;
  paidLamports: string;
  burnedLamports: string;
  owedLamports: string;
  unclaimedLamports: string;
  launches24h: number;
  updatedAt: string;
}

export interface JobHealth {
  ok: boolean;
  staleAfterSec: number;
  jobs: {
    job: string;
    lastRunAt: string | null;
    lastOkAt: string | null;
    secondsSinceOk: number | null;
    stale: boolean;
    running: boolean;
    runs: number;
    lastError: string | null;
  }[];
  checkedAt: string;
}

/** DESIGN §5 */
export interface Proof {
  treasury: string;
  treasuryLamports: string;
  owedLamports: string;
  surplusLamports: string;
  solvent: boolean;
  checkedAt: string;
}

/** DESIGN §5 */
export interface LaunchConfig {
  launchesOpen: boolean;
  platformBps: number;
  maxRecipients: number;
  maxFirstBuyLamports: string;
  creatorFeeBps: number;
  maxImageBytes: number;
}

export type LedgerEvent =
  | { type: "launch"; at: string; mint: string; symbol: string; signature: string; recipients: number }
  | { type: "sweep"; at: string; mint: string; symbol: string; signature: string; totalLamports: string; platformLamports: string }
  | { type: "payout"; at: string; handle: string; lamports: string; kind: string; status: string; signature?: string | null }
  | { type: "burn"; at: string; mint: string; symbol: string; signature: string; lamports: string; tokenAmount: string; source: string };
