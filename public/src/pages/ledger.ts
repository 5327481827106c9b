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
  /** Every row shown, by the event it shows: a later copy of the event replaces it in place. */
  const shown = new Map<string, HTMLElement>();
  const payouts = new PayoutRows();
  /**
   * Applies one event as the stream or a page read gives it: a new event is placed by its time
   * (several events of one transaction are each their own row); one already shown is redrawn when
   * it changed (a payout that went from sent to confirmed).
   */
  const apply = (event: LedgerEvent, live: boolean): void => {
    const e = payouts.rowFor(event);
    if (!e) return;
    const key = eventKey(e);
    const existing = shown.get(key);
    if (existing) {
      if (existing.dataset.state !== eventState(e)) {
        const item = eventItem(e);
        if (live) item.classList.add("live-new");
        existing.replaceWith(item);
        shown.set(key, item);
      }
      return;
    }
    // The feed's order is its ids (unique microsecond keys, newest first), not `at`: several events
    // of one second (a sweep run's) keep the order they were committed in, and a launch (whose
    // `at` is its block time) stays where the feed puts it.
    const items = Array.from(list.children) as HTMLElement[];
    const next = items.find((li) => (li.dataset.id ?? "") < e.id);
    // Older than everything loaded while older pages remain: "Load older events" will bring it.
    const oldest = items.at(-1)?.dataset.id ?? "";
    if (live && !next && before !== null && e.id < oldest) return;
    const item = eventItem(e);
    if (live) item.classList.add("live-new");
    shown.set(key, item);
    if (next) list.insertBefore(item, next);
    else list.append(item);
    status.querySelector(".empty")?.remove();
  };
  // Opened before the first page is read, so nothing committed in between is missed; an event in
  // both is shown once.
  followStream(signal, live, (e) => apply(e, true));
  recheckWhilePending(shown, (e) => apply(e, true), signal);
  const load = async () => {
    more.hidden = true;
    status.replaceChildren(loading());
    try {
      const page = await api<{ events: LedgerEvent[]; nextBefore: string | null }>(
        `/api/ledger${qs({ limit: 50, before })}`,
        { signal },
      );
      if (signal.aborted) return;
      for (const e of page.events) apply(e, false);
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

/**
 * The stream announces each status a payout reaches; without a stream (or while it reconnects) the
 * feed's first page is read again while a shown payout is still on its way.
 */
function recheckWhilePending(
  shown: Map<string, HTMLElement>,
  apply: (e: LedgerEvent) => void,
  signal: AbortSignal,
): void {
  const pending = () => Array.from(shown.values()).some((li) => li.dataset.state?.startsWith("pending"));
  const recheck = async () => {
    if (signal.aborted) return;
    if (pending() && !document.hidden) {
      try {
        const page = await api<{ events: LedgerEvent[] }>(`/api/ledger${qs({ limit: 50 })}`, { signal });
        for (const e of page.events) apply(e);
      } catch {
        // The next check tries again; the rows keep their last known state meanwhile.
      }
    }
    if (!signal.aborted) timer = setTimeout(() => void recheck(), PENDING_RECHECK_MS);
  };
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => void recheck(), PENDING_RECHECK_MS);
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
}

const PENDING_RECHECK_MS = 5000;
const FINAL_PAYOUT = new Set(["confirmed", "failed", "replaced"]);

/**
 * What identifies an event across the page and the stream. One transaction can carry several
 * events (a sweep run sweeps many tokens in one, a payout run pays many accounts), so the
 * signature alone is not enough; a payout's status is left out because it moves on.
 */
export function eventKey(e: LedgerEvent): string {
  switch (e.type) {
    case "payout":
      return `payout|${e.at}|${e.handle}|${e.lamports}|${e.kind}`;
    case "payoutStatus":
      return `payoutStatus|${e.id}`;
    case "burn":
      return `burn|${e.signature}|${e.source}|${e.mint}|${e.lamports}`;
    case "sweep":
      return `sweep|${e.signature}|${e.mint}|${e.at}`;
    default:
      return `${e.type}|${e.signature}|${e.mint}`;
  }
}

/** What can change about a shown event: a payout's status (and the signature it gets when sent). */
function eventState(e: LedgerEvent): string {
  if (e.type !== "payout") return "final";
  return `${FINAL_PAYOUT.has(e.status) ? "final" : "pending"}:${e.status}:${e.signature ?? ""}`;
}

type PayoutStatusEvent = Extract<LedgerEvent, { type: "payoutStatus" }>;

/**
 * A payout is announced once (its `payout` event, which keeps saying what it said then) and each
 * status it reaches is an event of its own: the page shows one row per payout, with the newest
 * status seen, whichever of the two arrives first.
 */
class PayoutRows {
  private readonly announced = new Map<number, LedgerEvent>();
  private readonly newest = new Map<number, PayoutStatusEvent>();

  /** The event to draw (or redraw) as a row for `e`; null when nothing on the page changes. */
  rowFor(e: LedgerEvent): LedgerEvent | null {
    if (e.type === "payoutStatus") {
      // A payout's events are ordered by their ids; an older one (a page read after the stream) changes nothing.
      const known = this.newest.get(e.payoutId);
      if (known && known.id >= e.id) return null;
      this.newest.set(e.payoutId, e);
      const payout = this.announced.get(e.payoutId);
      return payout ? this.withNewest(payout) : null;
    }
    if (e.type === "payout") this.announced.set(e.payoutId, e);
    return this.withNewest(e);
  }

  private withNewest(e: LedgerEvent): LedgerEvent {
    if (e.type !== "payout") return e;
    const latest = this.newest.get(e.payoutId);
    return latest ? { ...e, status: latest.status, signature: latest.signature ?? e.signature } : e;
  }
}

const STREAM_EVENT_TYPES = ["launch", "sweep", "payout", "payoutStatus", "burn"] as const;

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
    {
      className: `event event-${e.type}`,
      "data-type": e.type,
      "data-id": e.id,
      "data-at": e.at,
      "data-state": eventState(e),
    },
    h("span", { className: `event-type ${e.type}` }, e.type),
    h("span", { className: "event-body" }, body),
    h("span", { className: "event-meta" }, time(e.at), " ", explorerTx(signature ?? null)),
  );
}
