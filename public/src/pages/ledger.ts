/** The ledger feed: launches, sweeps, payouts and burns, newest first, paged by `before`. */
import { api, qs } from "../api";
import { h } from "../dom";
import type { LedgerEvent } from "../types";
import { errorBox, explorerTx, handleLink, loading, money, statusBadge, time, tokenLink } from "../ui";

export async function ledgerPage(root: HTMLElement, _params: Record<string, string>, signal: AbortSignal): Promise<void> {
  const list = h("ol", { className: "feed", id: "ledger", "aria-label": "Ledger events, newest first" });
  const status = h("div", { "aria-live": "polite" });
  const more = h("button", { type: "button", className: "secondary", hidden: true, id: "load-older" }, "Load older events");
  root.append(
    h("h1", null, "Ledger"),
    h("p", { className: "muted" }, "Every launch, confirmed sweep, payout and burn, newest first."),
    list,
    status,
    more,
  );
  let before: string | null = null;
  const load = async () => {
    more.hidden = true;
    status.replaceChildren(loading());
    try {
      const page = await api<{ events: LedgerEvent[]; nextBefore: string | null }>(`/api/ledger${qs({ limit: 50, before })}`, { signal });
      if (signal.aborted) return;
      list.append(...page.events.map(eventItem));
      before = page.nextBefore;
      status.replaceChildren(list.children.length === 0 ? h("p", { className: "empty" }, "Nothing has happened yet.") : "");
      more.hidden = before === null;
    } catch (error) {
      if (signal.aborted) return;
      status.replaceChildren(errorBox(error, () => void load()));
    }
  };
  more.addEventListener("click", () => void load());
  await load();
}

function eventItem(e: LedgerEvent): HTMLElement {
  const body: (Node | string)[] = [];
  switch (e.type) {
    case "launch":
      body.push("Launched ", tokenLink(e.mint, `$${e.symbol}`), ` with ${e.recipients} recipient${e.recipients === 1 ? "" : "s"}`);
      break;
    case "sweep":
      body.push("Swept ", money(e.totalLamports), " from ", tokenLink(e.mint, `$${e.symbol}`), " (platform part ", money(e.platformLamports), ")");
      break;
    case "payout":
      body.push(e.kind === "autopay" ? "Autopaid " : "Claimed ", money(e.lamports), " to ", handleLink(e.handle), " ", statusBadge(e.status));
      break;
    case "burn":
      body.push("Burned ", tokenLink(e.mint, `$${e.symbol}`), " bought with ", money(e.lamports), e.source === "platform" ? " (platform buyback)" : " (recipients' burn)");
      break;
    default:
      return h("li", { className: "event" }, "Unknown event");
  }
  const signature = "signature" in e ? e.signature : null;
  return h(
    "li",
    { className: `event event-${e.type}`, "data-type": e.type },
    h("span", { className: `event-type ${e.type}` }, e.type),
    h("span", { className: "event-body" }, body),
    h("span", { className: "event-meta" }, time(e.at), " ", explorerTx(signature ?? null)),
  );
}
