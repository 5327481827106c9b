/**
 * SPEC's response shapes as the page reads them: the server's own response types, imported as
 * types only (erased from the bundle), so the page and the API cannot drift apart.
 */
import type { Recipient as ServerRecipient } from "../../src/tokens/queries";
import type { SignedIn, SignedOut } from "../../src/accounts/me";
import type { HealthReport } from "../../src/jobs/health";
import type { FeedEvent } from "../../src/ledger/feed-queries";

export type { Token, Sweep, TokenDetail } from "../../src/tokens/queries";
export type { AccountToken, AccountRecord, Payout } from "../../src/accounts/record";
export type { Stats } from "../../src/stats/service";

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
