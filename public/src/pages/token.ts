/** One token: its record, its recipients and what each was credited, its recent sweeps. */
import { api, ApiError } from "../api";
import { h, safeUrl } from "../dom";
import { bpsToPercent, usd } from "../money";
import { absoluteTime } from "../time";
import { feeChart } from "../charts";
import type { Recipient, TokenDetail } from "../types";
import {
  avatar,
  copyable,
  errorBox,
  explorerAccount,
  explorerTx,
  facts,
  handleLink,
  loading,
  money,
  statusBadge,
  table,
  time,
  tokenImage,
} from "../ui";
import { notFoundView } from "./not-found";
import { routingLabel } from "../routing";

export { routingLabel };

export async function tokenPage(root: HTMLElement, params: Record<string, string>, signal: AbortSignal): Promise<void> {
  const mint = params.mint!;
  root.append(h("h1", null, "Token"), loading());
  let token: TokenDetail;
  try {
    token = await api<TokenDetail>(`/api/tokens/${encodeURIComponent(mint)}`, { signal });
  } catch (error) {
    if (signal.aborted) return;
    // Trying again cannot make a mint that was never launched here appear.
    if (error instanceof ApiError && (error.status === 404 || error.status === 400))
      return notFoundView(root, error.message);
    root.replaceChildren(
      h("h1", null, "Token"),
      errorBox(error, () => {
        root.replaceChildren();
        void tokenPage(root, params, signal);
      }),
    );
    return;
  }
  if (signal.aborted) return;
  document.title = `${token.name} ($${token.symbol}) · Fee Ledger`;

  root.replaceChildren(
    tokenHead(token),
    token.description ? h("p", { className: "description" }, token.description) : "",
    h("h2", null, "Fees"),
    feeFacts(token),
    feeChart(token.mint, signal),
    h("h2", null, "Recipients"),
    recipientsTable(token.recipients),
    h("h2", null, "Recent sweeps"),
    sweepsTable(token.sweeps),
    h("h2", null, "On chain"),
    onChainFacts(token),
  );
}

function tokenHead(token: TokenDetail): HTMLElement {
  const links = (
    [
      ["Website", token.website],
      ["X", token.twitter],
      ["Telegram", token.telegram],
    ] as const
  )
    .map(([label, url]) => [label, safeUrl(url)] as const)
    .filter(([, url]) => url !== null)
    .map(([label, url]) => h("a", { href: url!, target: "_blank", rel: "noopener noreferrer nofollow" }, label));
  return h(
    "header",
    { className: "token-head" },
    tokenImage(token.imageUrl, `${token.name} image`, 96, { seed: token.mint, label: token.symbol }),
    h(
      "div",
      null,
      h("h1", null, token.name, " ", h("span", { className: "ticker" }, `$${token.symbol}`)),
      token.bonded
        ? h("span", { className: "badge ok" }, "Bonded")
        : h("span", { className: "badge" }, "On the bonding curve"),
      h("p", { className: "mint" }, copyable(token.mint)),
      links.length
        ? h(
            "p",
            { className: "links" },
            links.flatMap((a, i) => (i ? [" · ", a] : [a])),
          )
        : null,
    ),
  );
}

function feeFacts(token: TokenDetail): HTMLElement {
  return facts([
    ["Swept, all time", money(token.sweptLamports, { "data-field": "swept" })],
    [
      "Unswept in the vaults",
      h(
        "span",
        null,
        money(token.vaultLamports, { "data-field": "unswept" }),
        " ",
        h("span", { className: "muted", "data-field": "vault-age" }, "read ", time(token.vaultCheckedAt)),
      ),
    ],
    ["Last sweep", time(token.lastSweptAt)],
    ["Platform share", bpsToPercent(token.platformBps)],
    ["Market cap", usd(token.marketCapUsd)],
    ["Volume, 24 h", usd(token.volume24hUsd)],
  ]);
}

function sweepsTable(sweeps: TokenDetail["sweeps"]): HTMLElement {
  return sweeps.length === 0
    ? h("p", { className: "empty" }, "No sweeps yet. Fees are swept once enough has accrued.")
    : table(
        ["Status", "Credited", "Platform part", "Sent", "Confirmed", "Transaction"],
        sweeps.map((s) => [
          statusBadge(s.status),
          money(s.totalLamports),
          money(s.platformLamports),
          time(s.createdAt),
          s.status === "confirmed" ? time(s.confirmedAt) : "–",
          explorerTx(s.signature),
        ]),
        "The 25 most recent sweeps, newest first",
      );
}

function onChainFacts(token: TokenDetail): HTMLElement {
  return facts([
    ["Launched", h("span", null, time(token.launchedAt), ` (${absoluteTime(token.launchedAt)})`)],
    ["Creator address", explorerAccount(token.creator)],
    ["Creator vault", explorerAccount(token.creatorVault)],
    ["Deployer", explorerAccount(token.deployer)],
    ["Launch transaction", explorerTx(token.launchSignature)],
    [
      "Metadata",
      safeUrl(token.metadataUri)
        ? h("a", { href: safeUrl(token.metadataUri)!, target: "_blank", rel: "noopener noreferrer" }, "metadata")
        : h("code", { className: "break" }, token.metadataUri),
    ],
  ]);
}

function recipientsTable(recipients: Recipient[]): HTMLElement {
  return table(
    ["Recipient", "Share", "Routing", "Status", "Credited"],
    recipients.map((r) => [
      h(
        "span",
        { className: "who" },
        avatar(r.avatarUrl, "", 28),
        " ",
        handleLink(r.handle, r.displayHandle),
        h("span", { className: "muted" }, ` ${r.name}`),
      ),
      bpsToPercent(r.bps),
      routingLabel(r),
      r.declined
        ? h(
            "span",
            { className: "badge bad", title: "Declined publicly; their credits are bought back and burned" },
            "Declined",
          )
        : r.claimed
          ? h("span", { className: "badge ok" }, "Claimed")
          : h("span", { className: "badge", title: "Has not signed in yet; credits wait for them" }, "Not claimed yet"),
      money(r.creditedLamports),
    ]),
    "Recipients and their shares of the recipients' part",
  );
}
