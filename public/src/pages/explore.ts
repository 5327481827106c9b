/**
 * Explore: the token list. Sort and search live in the URL so a view can be shared and the back
 * button works; more pages load on scroll (and through a button, for keyboards and screen readers).
 */
import { api, qs } from "../api";
import { h } from "../dom";
import { bpsToPercent, usd } from "../money";
import { navigate } from "../router";
import type { Token } from "../types";
import { errorBox, handleLink, loading, money, time, tokenImage } from "../ui";

const SORTS = [
  { key: "new", label: "Newest" },
  { key: "fees", label: "Most fees" },
  { key: "mcap", label: "Market cap" },
] as const;
const PAGE_SIZE = 24;
/** A sort or search re-renders the page; this puts keyboard focus back on the control used. */
let refocus: string | null = null;

export async function explorePage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const url = new URL(location.href);
  const sort = SORTS.some((s) => s.key === url.searchParams.get("sort")) ? url.searchParams.get("sort")! : "new";
  const q = (url.searchParams.get("q") ?? "").slice(0, 64);

  const go = (next: ExploreView) => exploreTo({ sort, q }, next);
  const form = searchForm(q, go);
  const sorts = sortButtons(sort, go);
  const list = h("ul", { className: "cards", id: "token-list", "aria-label": "Tokens" });
  const status = h("div", { className: "list-status", "aria-live": "polite" });
  const more = h("button", { type: "button", className: "secondary", id: "load-more", hidden: true }, "Load more");
  root.append(h("h1", null, "Explore"), form, sorts, list, status, more);
  if (refocus) root.querySelector<HTMLElement>(refocus)?.focus();
  refocus = null;

  let cursor: string | null = null;
  let busy = false;
  let done = false;
  // After a failed load only "Try again" loads: the observer's first callback can arrive after the
  // failure and would replace the error with a silent retry.
  let failed = false;
  const sentinel = h("div", { className: "sentinel", "aria-hidden": "true" });
  /** The observer only fires on a change, so a page that leaves the sentinel in view asks again. */
  const sentinelNearView = () => sentinel.getBoundingClientRect().top < window.innerHeight + 600;

  const loadPage = async (fromButton = false) => {
    if (busy || done) return;
    busy = true;
    let loaded = false;
    const keepFocus = fromButton || document.activeElement === more;
    more.hidden = true;
    status.replaceChildren(loading(cursor ? "Loading more tokens…" : "Loading tokens…"));
    try {
      const page = await api<{ tokens: Token[]; nextCursor: string | null }>(
        `/api/tokens${qs({ sort, q: q.trim() || null, limit: PAGE_SIZE, cursor })}`,
        { signal, onWait: (s) => status.replaceChildren(loading(`Busy; retrying in ${s} s…`)) },
      );
      if (signal.aborted) return;
      const cards = page.tokens.map((t) => tokenCard(t, sort));
      list.append(...cards);
      // "Load more" hides while loading; keep the keyboard on the first new card instead of the page top.
      if (keepFocus) cards[0]?.querySelector<HTMLElement>("a.stretch")?.focus();
      loaded = true;
      cursor = page.nextCursor;
      done = cursor === null;
      if (list.children.length === 0) {
        status.replaceChildren(
          h("p", { className: "empty" }, q ? `No tokens match “${q}”.` : "No tokens launched yet."),
        );
      } else if (done) {
        status.replaceChildren(h("p", { className: "muted end" }, "That is every token."));
      } else {
        status.replaceChildren();
        more.hidden = false;
      }
    } catch (error) {
      if (signal.aborted) return;
      failed = true;
      status.replaceChildren(
        errorBox(error, () => {
          failed = false;
          void loadPage();
        }),
      );
    } finally {
      busy = false;
    }
    if (loaded && !done && !signal.aborted && sentinelNearView()) await loadPage();
  };
  more.addEventListener("click", () => void loadPage(true));

  root.append(sentinel);
  // A focused "Load more" loads itself: a scroll load would move focus to a card that Enter opens.
  loadNearEnd(
    sentinel,
    () => !failed && document.activeElement !== more && sentinelNearView(),
    () => void loadPage(),
    signal,
  );
  await loadPage();
}

/**
 * Calls `load` as the list's end comes near the view, while `ready()` says so. Tabbing to "Load
 * more" also scrolls the end into view; loading then would move the keyboard to the new cards
 * under the user, and the Enter meant for the button would open a card. The caller's `ready()`
 * measures the end again: an entry can be older than the page just appended (a busy renderer can
 * deliver it after the first page landed), which would load a second page unasked.
 */
function loadNearEnd(sentinel: HTMLElement, ready: () => boolean, load: () => void, signal: AbortSignal): void {
  const observer = new IntersectionObserver(
    (entries) => {
      if (ready() && entries.some((e) => e.isIntersecting)) load();
    },
    { rootMargin: "600px" },
  );
  observer.observe(sentinel);
  signal.addEventListener("abort", () => observer.disconnect());
}

interface ExploreView {
  sort?: string;
  q?: string;
}

/** Navigates to another sort or search, noting which control gets focus back after the re-render. */
function exploreTo(current: Required<ExploreView>, next: ExploreView): void {
  const active = document.activeElement as HTMLElement | null;
  refocus = active?.dataset.sort
    ? `[data-sort="${next.sort ?? active.dataset.sort}"]`
    : active?.id === "search"
      ? "#search"
      : null;
  const s = next.sort ?? current.sort;
  const query = next.q ?? current.q;
  navigate(`/${qs({ sort: s === "new" ? null : s, q: query.trim() || null })}`);
}

function searchForm(q: string, go: (next: ExploreView) => void): HTMLElement {
  const search = h("input", {
    type: "search",
    id: "search",
    name: "q",
    maxlength: 64,
    value: q,
    // Short enough to show whole beside the button on a phone.
    placeholder: "Name, $ticker, @handle, mint",
    autocomplete: "off",
  });
  return h(
    "form",
    {
      className: "search",
      role: "search",
      onsubmit: (e: Event) => {
        e.preventDefault();
        go({ q: search.value });
      },
    },
    h("label", { for: "search", className: "visually-hidden" }, "Search tokens"),
    search,
    h("button", { type: "submit" }, "Search"),
    q ? h("button", { type: "button", className: "secondary", onclick: () => go({ q: "" }) }, "Clear") : null,
  );
}

function sortButtons(sort: string, go: (next: ExploreView) => void): HTMLElement {
  return h(
    "div",
    { className: "sorts", role: "group", "aria-label": "Sort tokens by" },
    SORTS.map((s) =>
      h(
        "button",
        {
          type: "button",
          "aria-pressed": String(s.key === sort),
          "data-sort": s.key,
          onclick: () => go({ sort: s.key }),
        },
        s.label,
      ),
    ),
  );
}

function tokenCard(token: Token, sort = "new"): HTMLElement {
  const href = `/token/${encodeURIComponent(token.mint)}`;
  return h(
    "li",
    { className: "card", "data-mint": token.mint },
    h(
      "div",
      { className: "card-head" },
      tokenImage(token.imageUrl, "", 56, { seed: token.mint, label: token.symbol }),
      h(
        "div",
        { className: "card-title" },
        h("h2", null, h("a", { href, className: "stretch" }, token.name)),
        h("span", { className: "ticker" }, `$${token.symbol}`),
      ),
      token.bonded
        ? h(
            "span",
            { className: "badge ok", title: "The bonding curve completed; it trades on the swap venue" },
            "Bonded",
          )
        : null,
    ),
    h(
      "p",
      { className: "recipients" },
      token.recipients.length === 0
        ? "No recipients"
        : token.recipients.flatMap((r, i) => [
            i > 0 ? ", " : "",
            handleLink(r.handle, r.displayHandle),
            ` ${bpsToPercent(r.bps)}`,
          ]),
    ),
    h(
      "dl",
      { className: "card-figures" },
      figure("Swept", money(token.sweptLamports), "swept"),
      figure("Unswept", money(token.vaultLamports), "unswept"),
      figure("Market cap", usd(token.marketCapUsd), "mcap"),
      figure("Last sweep", time(token.lastSweptAt), "last-sweep"),
      // "Most fees" ranks by swept plus unswept: the card shows the figure it is ranked by.
      sort === "fees"
        ? figure(
            "All fees (swept + unswept)",
            money((BigInt(token.sweptLamports) + BigInt(token.vaultLamports)).toString()),
            "fees",
          )
        : null,
    ),
  );
}

function figure(label: string, value: string | Node, key: string): HTMLElement {
  return h("div", { "data-figure": key }, h("dt", null, label), h("dd", null, value));
}
