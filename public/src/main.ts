/** Entry point: routes, the header's sign-in state, and a timer that keeps relative times fresh. */
import { api } from "./api";
import { h } from "./dom";
import { route, setOnNavigate, startRouter } from "./router";
import type { Me } from "./types";
import { refreshTimes } from "./ui";
import { explorePage } from "./pages/explore";
import { tokenPage } from "./pages/token";
import { accountPage } from "./pages/account";
import { mePage } from "./pages/me";
import { launchPage } from "./pages/launch";
import { ledgerPage } from "./pages/ledger";
import { statsPage } from "./pages/stats";
import { proofPage } from "./pages/proof";
import { adminPage } from "./pages/admin";

route("/", "Explore", async () => explorePage);
route("/token/:mint", "Token", async () => tokenPage);
route("/idp/:handle", "Account", async () => accountPage);
route("/me", "Your account", async () => mePage);
route("/launch", "Launch a token", async () => launchPage);
route("/ledger", "Ledger", async () => ledgerPage);
route("/stats", "Stats", async () => statsPage);
route("/proof", "Proof of reserves", async () => proofPage);
route("/admin", "Operator", async () => adminPage);

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
