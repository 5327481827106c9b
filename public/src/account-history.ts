/**
 * The history pieces of the account pages: the public pin and rename history of an account, and
 * the signed-in account's CSV statement (a plain download link: the browser sends the session
 * cookie and saves the file; the router leaves /api/ and download links alone).
 */
import { api } from "./api";
import { h } from "./dom";
import type { HandleHistoryEntry } from "../../src/api-types";
import { errorBox, handleLink, loading, time } from "./ui";
import { absoluteTime } from "./time";

export function handleHistorySection(handle: string, signal: AbortSignal): HTMLElement {
  const section = h(
    "section",
    { id: "handle-history", "aria-labelledby": "handle-history-title" },
    h("h2", { id: "handle-history-title" }, "History"),
    loading(),
  );
  void (async () => {
    let entries: HandleHistoryEntry[];
    try {
      entries = (
        await api<{ entries: HandleHistoryEntry[] }>(`/api/idp/${encodeURIComponent(handle)}/history`, { signal })
      ).entries;
    } catch (error) {
      if (!signal.aborted) section.replaceChildren(section.firstChild!, errorBox(error));
      return;
    }
    if (signal.aborted) return;
    const heading = section.firstChild!;
    if (entries.length === 0) {
      section.replaceChildren(
        heading,
        h("p", { className: "empty" }, "Not pinned to an account yet: nobody has signed in with this handle."),
      );
      return;
    }
    section.replaceChildren(
      heading,
      h(
        "ol",
        { className: "history-list", reversed: true },
        entries.map((e) =>
          h(
            "li",
            null,
            e.event === "pinned" ? "Signed in as " : "Renamed to ",
            handleLink(e.handle, e.displayHandle),
            " · ",
            time(e.pinnedAt),
            h("span", { className: "muted" }, ` (${absoluteTime(e.pinnedAt)})`),
          ),
        ),
      ),
    );
  })();
  return section;
}

export function exportCsvLink(): HTMLElement {
  return h(
    "p",
    { className: "export" },
    h("a", { href: "/api/me/export.csv", download: "", className: "button secondary", id: "export-csv" }, "Export CSV"),
    " ",
    h("span", { className: "muted" }, "Every credit, payout and burn of your account, for your records or taxes."),
  );
}
