/**
 * The ledger feed: launches, sweeps, payouts and burns, newest first, paged by `before`, and kept
 * live from `/api/ledger/stream` (Server-Sent Events; the browser resumes with Last-Event-ID).
 */
import { api, qs } from "../api";
import { h } from "../dom";
import type { LedgerEvent } from "../types";
import { errorBox, explorerTx, handleLink, loading, money, statusBadge, time, tokenLink } from "../ui";

export async function ledgerPage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const list = h("ol", { className: "feed", id: "ledger", "aria-label": "Ledger events, newest first" });
  const status = h("div", { "aria-live": "polite" });
  const more = h(
    "button",
    { type: "button", className: "secondary", hidden: true, id: "load-older" },
    "Load older events",
  );
  const live = h("span", { id: "live-status", className: "badge", "aria-live": "polite", hidden: true }, "");
  root.append(
    h("h1", null, "Ledger ", live),
    h("p", { className: "muted" }, "Every launch, confirmed sweep, payout and burn, newest first."),
    list,
    status,
    more,
  );
  let before: string | null = null;
  const shown = new Set<string>();
  const show = (events: LedgerEvent[]) => {
    const fresh = events.filter((e) => !shown.has(eventKey(e)));
    for (const e of fresh) shown.add(eventKey(e));
    return fresh.map(eventItem);
  };
  // Opened before the first page is read, so nothing committed in between is missed; an event in
  // both is shown once.
  followStream(signal, live, (e) => {
    if (shown.has(eventKey(e))) return;
    // Events arrive in commit order; a launch carries its block time, so place it by its time.
    const items = Array.from(list.children) as HTMLElement[];
    const next = items.find((li) => (li.dataset.at ?? "") < e.at);
    // Older than everything loaded while older pages remain: "Load older events" will bring it.
    if (!next && before !== null) return;
    shown.add(eventKey(e));
    const item = eventItem(e);
    item.classList.add("live-new");
    if (next) list.insertBefore(item, next);
    else list.append(item);
    status.querySelector(".empty")?.remove();
  });
  const load = async () => {
    more.hidden = true;
    status.replaceChildren(loading());
    try {
      const page = await api<{ events: LedgerEvent[]; nextBefore: string | null }>(
        `/api/ledger${qs({ limit: 50, before })}`,
        { signal },
      );
      if (signal.aborted) return;
      list.append(...show(page.events));
      before = page.nextBefore;
      status.replaceChildren(
        list.children.length === 0 ? h("p", { className: "empty" }, "Nothing has happened yet.") : "",
      );
      more.hidden = before === null;
    } catch (error) {
      if (signal.aborted) return;
      status.replaceChildren(errorBox(error, () => void load()));
    }
  };
  more.addEventListener("click", () => void load());
  await load();
}

/** What identifies an event across the page and the stream (a payout's status can move on). */
function eventKey(e: LedgerEvent): string {
  switch (e.type) {
    case "payout":
      return `payout|${e.at}|${e.handle}|${e.lamports}|${e.kind}`;
    case "burn":
      return `burn|${e.signature}|${e.source}`;
    default:
      return `${e.type}|${e.signature}`;
  }
}

const STREAM_EVENT_TYPES = ["launch", "sweep", "payout", "burn"] as const;

function followStream(signal: AbortSignal, badge: HTMLElement, onEvent: (e: LedgerEvent) => void): void {
  if (typeof EventSource === "undefined") return;
  const source = new EventSource("/api/ledger/stream");
  const state = (text: string, kind: string) => {
    badge.hidden = false;
    badge.textContent = text;
    badge.className = `badge ${kind}`;
  };
  state("Connecting…", "pending");
  source.addEventListener("open", () => state("Live", "ok"));
  // EventSource retries by itself, sending the last id it saw, so nothing is lost meanwhile.
  source.addEventListener("error", () =>
    source.readyState === EventSource.CLOSED ? state("Offline", "bad") : state("Reconnecting…", "pending"),
  );
  for (const type of STREAM_EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      try {
        onEvent(JSON.parse((message as MessageEvent<string>).data) as LedgerEvent);
      } catch {
        // A frame this page cannot read is skipped; the next page load shows the event.
      }
    });
  }
  signal.addEventListener("abort", () => source.close(), { once: true });
}

function eventItem(e: LedgerEvent): HTMLElement {
  const body: (Node | string)[] = [];
  switch (e.type) {
    case "launch":
      body.push(
        "Launched ",
        tokenLink(e.mint, `$${e.symbol}`),
        ` with ${e.recipients} recipient${e.recipients === 1 ? "" : "s"}`,
      );
      break;
    case "sweep":
      body.push(
        "Swept ",
        money(e.totalLamports),
        " from ",
        tokenLink(e.mint, `$${e.symbol}`),
        " (platform part ",
        money(e.platformLamports),
        ")",
      );
      break;
    case "payout":
      body.push(
        e.kind === "autopay" ? "Autopaid " : "Claimed ",
        money(e.lamports),
        " to ",
        handleLink(e.handle),
        " ",
        statusBadge(e.status),
      );
      break;
    case "burn":
      body.push(
        "Burned ",
        tokenLink(e.mint, `$${e.symbol}`),
        " bought with ",
        money(e.lamports),
        e.source === "platform" ? " (platform buyback)" : " (recipients' burn)",
      );
      break;
    default:
      return h("li", { className: "event" }, "Unknown event");
  }
  const signature = "signature" in e ? e.signature : null;
  return h(
    "li",
    { className: `event event-${e.type}`, "data-type": e.type, "data-at": e.at },
    h("span", { className: `event-type ${e.type}` }, e.type),
    h("span", { className: "event-body" }, body),
    h("span", { className: "event-meta" }, time(e.at), " ", explorerTx(signature ?? null)),
  );
}
