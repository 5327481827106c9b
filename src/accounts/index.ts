/** What others may use of accounts: the shapes of `/api/me` and an account's record, as the page reads them. */
export type { SignedIn, SignedOut } from "./me";
export type { AccountRecord, AccountToken, Payout } from "./record";
