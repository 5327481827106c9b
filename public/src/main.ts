/** Entry point: routes, the header's sign-in state, and a timer that keeps relative times fresh. */
import { api } from "./api";
import { h } from "./dom";
import { route, setOnNavigate, startRouter } from "./router";
import type { Me } from "./types";
import { refreshTimes } from "./ui";
import { explorePage } from "./pages/explore";

// Explore is the front door and comes with the bundle; every other page is its own chunk, loaded
// when first visited, so no page downloads the operator's, the launch's or the charts' code.
route("/", "Explore", async () => explorePage);
route("/token/:mint", "Token", async () => (await import("./pages/token")).tokenPage);
route("/idp/:handle", "Account", async () => (await import("./pages/account")).accountPage);
route("/me", "Your account", async () => (await import("./pages/me")).mePage);
route("/launch", "Launch a token", async () => (await import("./pages/launch")).launchPage);
route("/ledger", "Ledger", async () => (await import("./pages/ledger")).ledgerPage);
route("/stats", "Stats", async () => (await import("./pages/stats")).statsPage);
route("/proof", "Proof of reserves", async () => (await import("./pages/proof")).proofPage);
route("/admin", "Operator", async () => (await import("./pages/admin")).adminPage);

setOnNavigate((path) => {
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>("#nav a"))) {
    const target = new URL(a.href).pathname;
    const active = target === "/" ? path === "/" || path.startsWith("/token/") : path.startsWith(target);
    if (active) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
});

/** The header shows who is signed in; pages that change it call this again. */
export async function refreshSession(): Promise<Me | null> {
  const slot = document.getElementById("session");
  if (!slot) return null;
  try {
    const me = await api<Me>("/api/me");
    slot.replaceChildren(
      me.signedIn
        ? h("a", { href: "/me", className: "session-link" }, `@${me.displayHandle}`)
        : h("a", { href: "/me", className: "session-link" }, "Sign in"),
    );
    return me;
  } catch {
    // The header is a convenience; the account page shows the real error.
    slot.replaceChildren(h("a", { href: "/me", className: "session-link" }, "Account"));
    return null;
  }
}
window.addEventListener("session-changed", () => void refreshSession());

setInterval(() => refreshTimes(document), 30_000);
void refreshSession();
startRouter();
