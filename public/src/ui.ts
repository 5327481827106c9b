/** Building blocks shared by the pages: amounts, times, images, notices, links. */
import { describeError } from "./api";
import { h, safeUrl, shortAddress } from "./dom";
import { sol, solShort, usdOfLamports } from "./money";
import { absoluteTime, relativeTime, utcTime } from "./time";

/** SOL's price in USD from the page's meta tag: the market source's, served only while fresh. */
let solUsdPrice: number | null | undefined;
function solUsd(): number | null {
  if (solUsdPrice === undefined) {
    const raw = document.querySelector<HTMLMetaElement>('meta[name="sol-usd"]')?.content ?? "";
    const value = raw ? Number(raw) : Number.NaN;
    solUsdPrice = Number.isFinite(value) && value > 0 ? value : null;
  }
  return solUsdPrice;
}

/**
 * An amount in SOL, exact; with its value in USD beside it where the market source gave SOL's
 * price (never otherwise). `extra` (e.g. `data-field`) goes on the exact SOL figure.
 */
export function money(lamports: string | null | undefined, extra: Record<string, string> = {}): HTMLElement {
  const exact = amountText(lamports, extra);
  const price = solUsd();
  const usdText = price !== null && lamports ? usdOfLamports(lamports, price) : null;
  if (!usdText) return exact;
  return h(
    "span",
    { className: "amount" },
    exact,
    " ",
    h("span", { className: "usd muted", "data-usd": "" }, `≈ ${usdText}`),
  );
}

/**
 * The amount short ("1.5 SOL", see `solShort`) where the exact figure has more decimals than that;
 * the exact figure is in the title (hover) and one tap or key press away (touch has no hover),
 * as long values are. An amount with nothing to cut is plain text.
 */
function amountText(lamports: string | null | undefined, extra: Record<string, string>): HTMLElement {
  const full = sol(lamports);
  const short = lamports ? solShort(lamports) : full;
  const attrs = { "data-lamports": lamports ?? "", ...extra };
  if (short === full) return h("span", { className: "money", ...attrs }, full);
  const toggle = h(
    "button",
    { type: "button", className: "money money-toggle", title: `${full} exactly`, "aria-expanded": "false", ...attrs },
    short,
  );
  toggle.addEventListener("click", (event) => {
    // Inside a card whose link covers it, the tap is for the amount, not the card.
    event.preventDefault();
    event.stopPropagation();
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? full : short;
  });
  return toggle;
}

/** Relative text; the exact time (the browser's zone, then UTC) is in the title. */
export function time(iso: string | null | undefined, never = "never"): HTMLElement {
  if (!iso) return h("span", { className: "time" }, never);
  const el = h(
    "time",
    { datetime: iso, title: `${absoluteTime(iso)} (${utcTime(iso)})`, className: "time" },
    relativeTime(iso),
  );
  el.dataset.relative = "1";
  return el;
}

/** The absolute time in the browser's zone, with UTC in the title. */
export function when(iso: string | null | undefined, never = "never"): HTMLElement {
  if (!iso) return h("span", { className: "time" }, never);
  return h("time", { datetime: iso, title: utcTime(iso), className: "time" }, absoluteTime(iso));
}

/** Keeps relative times honest on a page left open. */
export function refreshTimes(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll<HTMLTimeElement>("time[data-relative]"))) {
    el.textContent = relativeTime(el.dateTime);
  }
}

const PLACEHOLDER =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#2a2f3a"/><circle cx="32" cy="26" r="10" fill="#4b5468"/><rect x="14" y="42" width="36" height="8" rx="4" fill="#4b5468"/></svg>',
  );

/**
 * A token without an image (the demo tokens, a launch whose image never pinned) gets a tile made
 * from its ticker and mint, so cards and rows stay tellable apart; nothing is fetched.
 */
function generatedImage(seed: string, label: string): string {
  let hash = 0;
  for (const c of seed) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  const letters = label
    .replace(/[^\p{L}\p{N}]/gu, "")
    .slice(0, 2)
    .toUpperCase()
    .replace(/[<>&"']/g, "");
  return (
    "data:image/svg+xml," +
    encodeURIComponent(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="hsl(${hue} 45% 28%)"/>` +
        `<circle cx="50" cy="14" r="22" fill="hsl(${(hue + 40) % 360} 55% 40%)" opacity=".55"/>` +
        `<text x="32" y="41" font-family="system-ui,sans-serif" font-size="24" font-weight="700" fill="#fff" text-anchor="middle">${letters}</text></svg>`,
    )
  );
}

export function tokenImage(
  url: string | null,
  alt: string,
  size = 64,
  fallback?: { seed: string; label: string },
): HTMLImageElement {
  const placeholder = fallback ? generatedImage(fallback.seed, fallback.label) : PLACEHOLDER;
  const img = h("img", {
    src: safeUrl(url) ?? placeholder,
    alt,
    width: size,
    height: size,
    loading: "lazy",
    decoding: "async",
    className: "token-img",
  });
  // A missing preview must not leave a broken-image icon (or a console error loop).
  img.addEventListener(
    "error",
    () => {
      if (img.src !== placeholder) img.src = placeholder;
    },
    { once: true },
  );
  return img;
}

export function avatar(url: string | null | undefined, alt: string, size = 40): HTMLImageElement {
  const img = tokenImage(url ?? null, alt, size);
  img.className = "avatar";
  return img;
}

export function errorBox(error: unknown, retry?: () => void): HTMLElement {
  return h(
    "div",
    { className: "notice error", role: "alert" },
    h("p", null, describeError(error)),
    retry ? h("button", { type: "button", onclick: () => retry() }, "Try again") : null,
  );
}

export function notice(text: string | Node, kind: "info" | "warn" | "ok" = "info"): HTMLElement {
  return h("div", { className: `notice ${kind}`, role: kind === "warn" ? "alert" : "status" }, text);
}

export function loading(label = "Loading…"): HTMLElement {
  return h("p", { className: "loading", role: "status" }, label);
}

export function handleLink(handle: string, display?: string): HTMLAnchorElement {
  return h("a", { href: `/idp/${encodeURIComponent(handle)}` }, `@${display ?? handle}`);
}

export function tokenLink(mint: string, text: string): HTMLAnchorElement {
  return h("a", { href: `/token/${encodeURIComponent(mint)}` }, text);
}

/**
 * The deployment's explorer link template (`{kind}`, `{id}`), from the page's meta tag. Empty on
 * the local chain: its signatures and accounts exist on no public explorer.
 */
function explorerUrl(kind: "tx" | "account", id: string): string | null {
  const template = document.querySelector<HTMLMetaElement>('meta[name="explorer-url"]')?.content ?? "";
  if (!template.includes("{id}")) return null;
  try {
    const url = new URL(template.replaceAll("{kind}", kind).replaceAll("{id}", encodeURIComponent(id)));
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A long value (signature, address) shown short, with the whole value one tap away (not only in a
 * hover tooltip, which touch screens cannot reach) and a copy button; a link to the explorer where
 * this deployment has one.
 */
export function longValue(full: string, what: string, href: string | null = null): HTMLElement {
  const short = shortAddress(full);
  const shown = href
    ? h("a", { href, target: "_blank", rel: "noopener noreferrer", className: "mono", title: full }, short)
    : h("code", { className: "mono", title: full }, short);
  const parts: HTMLElement[] = [shown];
  if (short !== full) {
    // The visible "…" is decoration; the button's name says what it does.
    const mark = h("span", { "aria-hidden": "true" }, "…");
    const name = h("span", { className: "visually-hidden" }, `Show the whole ${what}`);
    const toggle = h("button", { type: "button", className: "mini", "aria-expanded": "false" }, mark, name);
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", String(open));
      shown.textContent = open ? full : short;
      shown.classList.toggle("break", open);
      mark.textContent = open ? "Less" : "…";
      name.textContent = open ? `Show the ${what} short` : `Show the whole ${what}`;
    });
    parts.push(toggle);
  }
  parts.push(copyButton(full, `Copy the ${what}`));
  return h("span", { className: "long-value", "data-full": full }, parts);
}

function explorerLink(kind: "tx" | "account", id: string): HTMLElement {
  return longValue(id, kind === "tx" ? "transaction signature" : "address", explorerUrl(kind, id));
}

export function explorerTx(signature: string | null | undefined): HTMLElement {
  if (!signature) return h("span", { className: "muted" }, "not sent yet");
  return explorerLink("tx", signature);
}

export function explorerAccount(address: string): HTMLElement {
  return explorerLink("account", address);
}

function copyButton(text: string, label: string): HTMLButtonElement {
  const button = h("button", { type: "button", className: "copy mini", "aria-label": label }, "Copy");
  button.addEventListener("click", () => {
    const done = () => {
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = "Copy"), 1500);
    };
    if (navigator.clipboard?.writeText)
      void navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
    else fallbackCopy(text, done);
  });
  return button;
}

/** Plain http pages (a LAN address) have no clipboard API: copy through a selected textarea. */
function fallbackCopy(text: string, done: () => void): void {
  const area = h("textarea", { readonly: true, "aria-hidden": "true", tabindex: -1, className: "visually-hidden" });
  area.value = text;
  document.body.append(area);
  area.select();
  try {
    if (document.execCommand("copy")) done();
  } finally {
    area.remove();
  }
}

export function copyable(text: string, what = "mint address"): HTMLElement {
  return h(
    "span",
    { className: "copyable" },
    h("code", { className: "mono break" }, text),
    copyButton(text, `Copy the ${what}`),
  );
}

export function statusBadge(status: string): HTMLElement {
  const kind = status === "confirmed" ? "ok" : status === "failed" || status === "replaced" ? "bad" : "pending";
  return h("span", { className: `badge ${kind}`, "data-status": status }, status);
}

/** A definition list of label/value rows. */
export function facts(rows: [string, Node | string][]): HTMLElement {
  return h(
    "dl",
    { className: "facts" },
    rows.map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v))),
  );
}

export function table(head: string[], rows: (Node | string)[][], caption?: string): HTMLElement {
  return h(
    "div",
    { className: "table-wrap", tabindex: 0, role: "region", "aria-label": caption ?? head.join(", ") },
    h(
      "table",
      null,
      caption ? h("caption", null, caption) : null,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          head.map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        null,
        rows.map((r) =>
          h(
            "tr",
            null,
            r.map((c, i) => h("td", { "data-label": head[i] ?? "" }, c)),
          ),
        ),
      ),
    ),
  );
}
