/** The public record of one handle: totals, the tokens naming it, its payouts. */
import { api } from "../api";
import { h } from "../dom";
import { bpsToPercent } from "../money";
import type { AccountRecord, AccountToken, Payout } from "../types";
import {
  avatar,
  errorBox,
  explorerAccount,
  explorerTx,
  facts,
  loading,
  money,
  notice,
  statusBadge,
  table,
  time,
  tokenLink,
} from "../ui";
import { routingLabel } from "../routing";
import { handleHistorySection } from "../account-history";

export async function accountPage(
  root: HTMLElement,
  params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const handle = params.handle!.replace(/^@/, "");
  root.append(h("h1", null, `@${handle}`), loading());
  let account: AccountRecord;
  try {
    account = await api<AccountRecord>(`/api/idp/${encodeURIComponent(handle)}`, { signal });
  } catch (error) {
    if (signal.aborted) return;
    root.replaceChildren(h("h1", null, `@${handle}`), errorBox(error));
    return;
  }
  if (signal.aborted) return;
  document.title = `@${account.displayHandle} · Fee Ledger`;
  root.replaceChildren(
    h(
      "header",
      { className: "account-head" },
      avatar(account.avatarUrl, "", 72),
      h(
        "div",
        null,
        h("h1", null, account.name || `@${account.displayHandle}`),
        h("p", { className: "muted" }, `@${account.displayHandle}${followersText(account.followers)}`),
        h("p", null, "Routing: ", routingLabel(account)),
      ),
    ),
    account.claimed ? "" : unclaimedNotice(account.displayHandle),
    account.declined
      ? notice(`@${account.displayHandle} declined publicly: their credits are bought back and burned.`, "info")
      : "",
    h("h2", null, "Totals"),
    account.reconciling ? reconcilingNotice() : "",
    facts([
      ["Credited", figure(account.creditedLamports, "credited")],
      ...paidRows(account),
      burnedRow(account),
      ["Waiting to be claimed", figure(account.balanceLamports, "balance")],
    ]),
    h("h2", null, "Tokens"),
    tokensTable(account.tokens),
    h("h2", null, "Payouts"),
    payoutsTable(account.payouts),
    handleHistorySection(account.handle, signal),
  );
}

/**
 * The count is only known from a sign-in with X; the API answers 0 for a handle that never signed
 * in (or signed in without a profile, as dev login does), so 0 is shown as nothing, not as "0 followers".
 */
function followersText(followers: number): string {
  if (followers <= 0) return "";
  return ` · ${followers.toLocaleString("en-US")} follower${followers === 1 ? "" : "s"}`;
}

const ON_THE_WAY = new Set(["queued", "sent"]);

/**
 * A figure of the account, or "reconciling" while the books are reconciled with the chain after a
 * restore (the API answers null then): never a number on its way to the right one.
 */
export function figure(lamports: string | null, field: string): HTMLElement {
  if (lamports === null) return h("span", { className: "reconciling muted", "data-field": field }, "reconciling");
  return money(lamports, { "data-field": field });
}

export function reconcilingNotice(): HTMLElement {
  return notice(
    "The books are being reconciled with the chain after a restore: the figures show again when it is done.",
    "info",
  );
}

/**
 * SPEC's `paidLamports` counts payouts that have not failed, queued and in flight too; Stats counts
 * confirmed ones only. The two parts are shown apart so the figures agree.
 */
export function paidRows(account: { paidLamports: string | null; payouts: Payout[] }): [string, HTMLElement][] {
  if (account.paidLamports === null)
    return [
      ["Paid out (confirmed)", figure(null, "paid")],
      ["Payouts on their way", figure(null, "paid-pending")],
    ];
  const onTheWay = account.payouts
    .filter((p) => ON_THE_WAY.has(p.status))
    .reduce((sum, p) => sum + BigInt(p.lamports), 0n);
  const confirmed = BigInt(account.paidLamports) - onTheWay;
  return [
    ["Paid out (confirmed)", money((confirmed < 0n ? 0n : confirmed).toString(), { "data-field": "paid" })],
    ["Payouts on their way", money(onTheWay.toString(), { "data-field": "paid-pending" })],
  ];
}

/** `burnedLamports` is what was routed to burn orders; the burns job buys and burns them on its runs. */
export function burnedRow(account: { burnedLamports: string | null }): [string, HTMLElement] {
  if (account.burnedLamports === null) return ["Routed to burn", figure(null, "burned")];
  return [
    "Routed to burn",
    h(
      "span",
      null,
      money(account.burnedLamports, { "data-field": "burned" }),
      h("span", { className: "muted small" }, " (bought and burned by the burns job)"),
    ),
  ];
}

function unclaimedNotice(displayHandle: string): HTMLElement {
  return h(
    "div",
    { className: "notice warn unclaimed", role: "note" },
    h("h2", null, "Not claimed yet"),
    h(
      "p",
      null,
      `Fees are being credited to @${displayHandle}, and they wait here until claimed. `,
      `If you are @${displayHandle}, `,
      h("a", { href: "/me" }, "sign in with X"),
      " using that account: you will see your balance, can choose to hold, autopay or burn new credits, and can claim to any Solana wallet.",
    ),
  );
}

export function tokensTable(tokens: AccountToken[]): HTMLElement {
  if (tokens.length === 0) return h("p", { className: "empty" }, "No tokens.");
  return table(
    ["Token", "Share", "Credited"],
    tokens.map((t) => [
      tokenLink(t.mint, `${t.name} ($${t.symbol})`),
      bpsToPercent(t.bps),
      t.creditedLamports === null ? figure(null, "token-credited") : money(t.creditedLamports),
    ]),
    "Tokens naming this account",
  );
}

export function payoutsTable(payouts: Payout[], id = "payouts"): HTMLElement {
  if (payouts.length === 0) return h("p", { className: "empty", id }, "No payouts yet.");
  const el = table(
    ["Amount", "Kind", "Status", "Wallet", "Queued", "Confirmed", "Transaction"],
    payouts.map((p) => [
      money(p.lamports),
      p.kind === "autopay" ? "Autopay" : "Claim",
      statusBadge(p.status),
      explorerAccount(p.wallet),
      time(p.createdAt),
      p.status === "confirmed" ? time(p.confirmedAt ?? null) : "–",
      explorerTx(p.signature ?? null),
    ]),
    "Payouts, newest first",
  );
  el.id = id;
  return el;
}
