/** The page's own not-found view: for a mistyped path, and for a token or account that does not exist. */
import { h } from "../dom";

export function notFoundView(root: HTMLElement, reason = "There is no page at this address."): void {
  document.title = "Not found · Fee Ledger";
  root.replaceChildren(
    h("h1", { tabindex: -1, id: "not-found" }, "Page not found"),
    h("p", null, reason),
    h(
      "p",
      null,
      "Try ",
      h("a", { href: "/" }, "Explore"),
      " to find a token by name, $ticker, @handle or mint, or the ",
      h("a", { href: "/ledger" }, "Ledger"),
      " for everything that happened.",
    ),
  );
}
