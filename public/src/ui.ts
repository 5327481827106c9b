/** Building blocks shared by the pages: amounts, times, images, notices, links. */
import { describeError } from "./api";
import { h, safeUrl, shortAddress } from "./dom";
import { sol } from "./money";
import { absoluteTime, relativeTime } from "./time";

export function money(lamports: string | null | undefined, extra: Record<string, string> = {}): HTMLElement {
  return h("span", { className: "money", "data-lamports": lamports ?? "", ...extra }, sol(lamports));
}

/** Relative text; the exact UTC time is in the title and the datetime attribute. */
export function time(iso: string | null | undefined, never = "never"): HTMLElement {
  if (!iso) return h("span", { className: "time" }, never);
  const el = h("time", { datetime: iso, title: absoluteTime(iso), className: "time" }, relativeTime(iso));
  el.dataset.relative = "1";
  return el;
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

export function tokenImage(url: string | null, alt: string, size = 64): HTMLImageElement {
  const img = h("img", {
    src: safeUrl(url) ?? PLACEHOLDER,
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
      if (img.src !== PLACEHOLDER) img.src = PLACEHOLDER;
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
export function explorerUrl(kind: "tx" | "account", id: string): string | null {
  const template = document.querySelector<HTMLMetaElement>('meta[name="explorer-url"]')?.content ?? "";
  if (!template.includes("{id}")) return null;
  try {
    const url = new URL(template.replaceAll("{kind}", kind).replaceAll("{id}", encodeURIComponent(id)));
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

function explorerLink(kind: "tx" | "account", id: string): HTMLElement {
  const href = explorerUrl(kind, id);
  if (!href) return h("code", { className: "mono", title: id }, shortAddress(id));
  return h("a", { href, target: "_blank", rel: "noopener noreferrer", className: "mono", title: id }, shortAddress(id));
}

export function explorerTx(signature: string | null | undefined): HTMLElement {
  if (!signature) return h("span", { className: "muted" }, "not sent yet");
  return explorerLink("tx", signature);
}

export function explorerAccount(address: string): HTMLElement {
  return explorerLink("account", address);
}

export function copyable(text: string): HTMLElement {
  const button = h("button", { type: "button", className: "copy", "aria-label": `Copy ${text}` }, "Copy");
  button.addEventListener("click", () => {
    void navigator.clipboard?.writeText(text).then(
      () => {
        button.textContent = "Copied";
        setTimeout(() => (button.textContent = "Copy"), 1500);
      },
      () => {},
    );
  });
  return h("span", { className: "copyable" }, h("code", { className: "mono break" }, text), button);
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
