/**
 * SPEC's response shapes as the page reads them: the server's own response types, imported as
 * types only (erased from the bundle), so the page and the API cannot drift apart.
 */
import type { FeedEvent, HealthReport, Recipient as ServerRecipient, SignedIn, SignedOut } from "../../src/api-types";

export type { AccountRecord, AccountToken, Payout, Stats, Token, TokenDetail } from "../../src/api-types";

export type Recipient = ServerRecipient;
export type Routing = "hold" | "autopay" | "burn";
export type Me = SignedOut | SignedIn;
export type SignedInMe = SignedIn;
export type JobHealth = HealthReport;
export type LedgerEvent = FeedEvent;

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
  handlesPinnedAtLaunch: boolean;
}
