/**
 * The signed-in area: balance, thresholds, routing, claim, payouts. The figures and payouts refresh
 * on their own (quickly while a payout is on its way) without touching what the user is typing.
 */
import { api, ApiError, describeError, qs } from "../api";
import { h } from "../dom";
import { sol, solToLamports } from "../money";
import { render } from "../router";
import { relativeTime } from "../time";
import type { JobHealth, Me, Routing, SignedInMe, Token } from "../types";
import { avatar, errorBox, facts, loading, money, notice, time } from "../ui";
import { walletChooser } from "../wallet-chooser";
import { burnedRow, figure, paidRows, payoutsTable, reconcilingNotice, tokensTable } from "./account";
import { exportCsvLink } from "../account-history";
import { liabilityProofBlock } from "./me-proof";

const FINAL_PAYOUT = new Set(["confirmed", "failed", "replaced"]);
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export async function mePage(root: HTMLElement, _params: Record<string, string>, signal: AbortSignal): Promise<void> {
  root.append(h("h1", null, "Your account"), loading());
  let me: Me;
  try {
    me = await api<Me>("/api/me", { signal });
  } catch (error) {
    if (signal.aborted) return;
    root.replaceChildren(
      h("h1", null, "Your account"),
      errorBox(error, () => void render()),
    );
    return;
  }
  if (signal.aborted) return;
  if (!me.signedIn) signedOut(root, me);
  else signedIn(root, me, signal);
}

function sessionChanged(): void {
  window.dispatchEvent(new Event("session-changed"));
  // The form that had focus is gone: focus starts again at the page's heading, not at <body>.
  void render({ focus: true });
}

function signedOut(root: HTMLElement, me: Extract<Me, { signedIn: false }>): void {
  const parts: Node[] = [
    h("h1", null, "Sign in"),
    h(
      "p",
      null,
      "Recipients sign in with the X account a token names. Signing in shows your balance and lets you claim it to a wallet or choose what happens to new fees.",
    ),
  ];
  if (!me.idpConfigured && me.devLogin) {
    parts.push(
      notice(
        "Sign-in with X is not set up on this deployment (it runs on the local chain). Use dev login below: it signs you in as any handle, here only.",
        "info",
      ),
    );
  }
  if (me.idpConfigured) {
    parts.push(
      h(
        "p",
        null,
        h(
          "a",
          { className: "button", href: `/api/auth/idp/start?returnTo=${encodeURIComponent("/me")}`, id: "signin-x" },
          "Sign in with X",
        ),
      ),
    );
  }
  if (me.devLogin) {
    const input = h("input", {
      id: "dev-handle",
      name: "handle",
      required: true,
      maxlength: 16,
      pattern: "@?[A-Za-z0-9_]{1,15}",
      autocomplete: "off",
    });
    const status = h("div", { "aria-live": "polite" });
    const suggestions = h("div", { id: "dev-handles" });
    const form = h(
      "form",
      { className: "stack", id: "dev-login" },
      h("h2", null, "Dev login"),
      h("p", { className: "muted" }, "Local chain only: sign in as any handle without X."),
      h("label", { for: "dev-handle" }, "Handle"),
      input,
      h("button", { type: "submit" }, "Sign in as this handle"),
      status,
      suggestions,
    );
    void suggestHandles(suggestions, (handle) => {
      input.value = handle;
      form.requestSubmit();
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      status.replaceChildren(loading("Signing in…"));
      try {
        await api("/api/auth/dev-login", { body: { handle: input.value.trim().replace(/^@/, "") } });
        sessionChanged();
      } catch (error) {
        status.replaceChildren(errorBox(error));
      }
    });
    parts.push(form);
  }
  if (!me.idpConfigured && !me.devLogin) parts.push(notice("Sign-in is not set up on this deployment.", "warn"));
  root.replaceChildren(...parts);
}

/**
 * On the local chain (the demo's too) the handles its tokens name, those with the most fees first:
 * a newcomer can sign in as one and see a balance to claim.
 */
async function suggestHandles(slot: HTMLElement, pick: (handle: string) => void): Promise<void> {
  let tokens: Token[];
  try {
    tokens = (await api<{ tokens: Token[] }>(`/api/tokens${qs({ sort: "fees", limit: 24 })}`)).tokens;
  } catch {
    return; // a convenience: typing a handle still works
  }
  const handles = new Map<string, string>();
  for (const t of tokens)
    for (const r of t.recipients) if (!handles.has(r.handle)) handles.set(r.handle, r.displayHandle);
  if (handles.size === 0) return;
  slot.replaceChildren(
    h("p", { className: "muted" }, "Or pick one of the handles tokens here name, most fees first:"),
    h(
      "ul",
      { className: "handle-choices" },
      [...handles].slice(0, 8).map(([handle, display]) =>
        h(
          "li",
          null,
          h(
            "button",
            {
              type: "button",
              className: "secondary",
              onclick: () => pick(handle),
              "aria-label": `Sign in as @${display}`,
            },
            `@${display}`,
          ),
        ),
      ),
    ),
  );
}

function signedIn(root: HTMLElement, first: SignedInMe, signal: AbortSignal): void {
  let me = first;
  const banner = h("div", { id: "paused-banner" });
  const balance = h("div", { id: "balance-facts" });
  const totals = h("div", { id: "totals" });
  const payouts = h("div", { id: "payouts-slot", "aria-live": "polite" });
  const tokens = h("div");
  let syncClaim = () => {};

  const paint = () => {
    banner.replaceChildren(pausedNotice(me), me.reconciling ? reconcilingNotice() : "");
    // The balance and the claim come first: on a phone the other figures would push the form
    // seven cards down.
    balance.replaceChildren(
      facts([
        ["Balance", figure(me.balanceLamports, "balance")],
        ["Smallest claim", money(me.minClaimLamports, { "data-field": "min-claim" })],
      ]),
    );
    totals.replaceChildren(
      facts([
        ["Credited", figure(me.creditedLamports, "credited")],
        ...paidRows(me),
        burnedRow(me),
        ["Autopay pays from", money(me.autopayMinLamports, { "data-field": "autopay-min" })],
      ]),
    );
    payouts.replaceChildren(payoutsTable(me.payouts));
    tokens.replaceChildren(tokensTable(me.tokens));
    syncClaim();
  };

  // Quick refreshes while a payout is on its way, slow ones otherwise.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    if (signal.aborted) return;
    const pending = me.payouts.some((p) => !FINAL_PAYOUT.has(p.status));
    timer = setTimeout(() => void refresh(), pending ? 2000 : 15000);
  };
  signal.addEventListener("abort", () => clearTimeout(timer));
  const staleness = staleNotice();
  const refresh = async () => {
    const next = await readMe(signal, staleness);
    if (next && !next.signedIn) return sessionChanged();
    if (next) {
      me = next;
      paint();
    }
    schedule();
  };
  schedule();

  root.replaceChildren(
    accountHead(me),
    staleness.slot,
    banner,
    balance,
    claimForm(
      () => me,
      refresh,
      (sync) => (syncClaim = sync),
      signal,
    ),
    h("h2", null, "Totals"),
    totals,
    routingForm(() => me, refresh, signal),
    h("h2", null, "Payouts"),
    payouts,
    exportCsvLink(),
    h("h2", null, "Your tokens"),
    tokens,
    liabilityProofBlock(me, signal),
  );
  paint();
}

/**
 * The account read again, or null when it could not be: the last figures stay, marked as possibly
 * out of date, and the next refresh tries again.
 */
async function readMe(signal: AbortSignal, staleness: ReturnType<typeof staleNotice>): Promise<Me | null> {
  try {
    const next = await api<Me>("/api/me", { signal });
    staleness.fresh();
    return next;
  } catch (error) {
    if (!signal.aborted) staleness.stale(error);
    return null;
  }
}

/**
 * While the figures cannot be refreshed (the service is down or unreachable), the page says so and
 * since when they are, instead of showing old figures as if they were current.
 */
function staleNotice(): { slot: HTMLElement; fresh: () => void; stale: (error: unknown) => void } {
  const slot = h("div", { id: "stale-figures" });
  let readAt = new Date().toISOString();
  return {
    slot,
    fresh: () => {
      readAt = new Date().toISOString();
      slot.replaceChildren();
    },
    stale: (error) => {
      const sentence = h("span", { className: "stale-why" }, describeError(error));
      const shown = slot.querySelector(".stale-why");
      // Once shown, only the reason is kept current: a new alert every refresh would be re-announced.
      if (shown) return void shown.replaceWith(sentence);
      slot.replaceChildren(
        notice(
          h(
            "span",
            null,
            "These figures may be out of date: they could not be refreshed. ",
            sentence,
            " They are as of ",
            time(readAt),
            "; the page keeps trying.",
          ),
          "warn",
        ),
      );
    },
  };
}

function pausedNotice(me: SignedInMe): HTMLElement | string {
  return me.claimsPaused
    ? notice(
        // The server's sentence says why (the operator's pause, or a halt the service put itself in).
        me.claimsPausedReason ??
          "Claims and payouts are paused right now. Your balance is safe; queued payouts are sent once they resume.",
        "warn",
      )
    : "";
}

/** Who is signed in, with the way out. */
function accountHead(me: SignedInMe): HTMLElement {
  const signOut = h("button", { type: "button", className: "secondary", id: "sign-out" }, "Sign out");
  signOut.addEventListener("click", async () => {
    try {
      await api("/api/auth/logout", { method: "POST" });
    } finally {
      sessionChanged();
    }
  });
  return h(
    "header",
    { className: "account-head" },
    avatar(me.avatarUrl, "", 64),
    h(
      "div",
      null,
      h("h1", null, me.name || `@${me.displayHandle}`),
      h("p", { className: "muted" }, me.handles.map((x) => `@${x}`).join(", ") || `@${me.displayHandle}`),
    ),
    signOut,
  );
}

/** When the payouts job runs next, as "in 40 seconds", or null when the server does not say. */
async function nextPayoutRun(): Promise<string | null> {
  try {
    const health = await api<JobHealth>("/api/cron/health");
    const at = health.jobs.find((j) => j.job === "payouts")?.nextRunAt;
    return at ? relativeTime(at) : null;
  } catch {
    return null;
  }
}

/** The API states amounts in lamports; the form speaks SOL (e.g. a minimum raised since the page loaded). */
function inSol(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const text = error.message.replace(/(\d+) lamports/g, (_, lamports: string) => sol(lamports));
  return text === error.message ? error : new Error(text);
}

function claimForm(
  get: () => SignedInMe,
  refresh: () => Promise<void>,
  onSync: (sync: () => void) => void,
  signal: AbortSignal,
): HTMLElement {
  const me = get();
  const { amount, wallet } = claimInputs(me);
  const status = h("div", { id: "claim-status", "aria-live": "polite" });
  const connected = walletChooser(wallet, status, signal, "claim");
  const button = h("button", { type: "submit", "aria-describedby": "claim-below-min" }, "Claim");
  const belowMin = h("p", { className: "notice info", id: "claim-below-min", hidden: true });
  /** The claim this form queued, followed until its payout is final. */
  let queued: { id: number; lamports: string } | null = null;
  const form = h(
    "form",
    { className: "stack panel", id: "claim-form" },
    h("h2", null, "Claim"),
    h("label", { for: "claim-amount" }, "Amount in SOL"),
    amount,
    h(
      "p",
      { className: "muted", id: "claim-amount-help" },
      `Leave empty to claim the whole balance. At least ${sol(me.minClaimLamports)}.`,
    ),
    h("label", { for: "claim-wallet" }, "Wallet address"),
    wallet,
    connected,
    belowMin,
    button,
    status,
  );
  onSync(() => {
    const current = get();
    // Under the minimum the form says so up front instead of failing on submit.
    // While reconciling there is no balance to claim from (claims wait for the reconciliation too).
    const below = !claimable(current);
    belowMin.hidden = !below || current.balanceLamports === null;
    belowMin.textContent =
      below && current.balanceLamports !== null
        ? `Your balance (${sol(current.balanceLamports)}) is below the smallest claim of ${sol(current.minClaimLamports)}; you can claim once it reaches that.`
        : "";
    button.disabled = below;
    const payout = queued && current.payouts.find((p) => p.id === queued!.id);
    if (queued && payout && FINAL_PAYOUT.has(payout.status)) {
      status.replaceChildren(finalPayoutNotice(payout));
      queued = null;
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = claimBody(get(), wallet, amount, status);
    if (!body) return;
    button.disabled = true;
    status.replaceChildren(loading("Queueing your claim…"));
    try {
      const result = await api<{ payoutId: number; lamports: string; status: string }>("/api/claim", { body });
      queued = { id: result.payoutId, lamports: result.lamports };
      const next = await nextPayoutRun();
      // A refresh meanwhile may already have shown the payout final; that message stays.
      if (queued?.id === result.payoutId)
        status.replaceChildren(
          notice(
            `Claim of ${sol(result.lamports)} queued (payout #${result.payoutId}). It is sent on the next payout run${next ? ` (${next})` : ""}; its status updates below.`,
            "ok",
          ),
        );
      amount.value = "";
      await refresh();
    } catch (error) {
      status.replaceChildren(claimFailedNotice(error));
    } finally {
      button.disabled = !claimable(get());
    }
  });
  return form;
}

function claimInputs(me: SignedInMe): { amount: HTMLInputElement; wallet: HTMLInputElement } {
  const amount = h("input", {
    id: "claim-amount",
    name: "amount",
    inputmode: "decimal",
    autocomplete: "off",
    "aria-describedby": "claim-amount-help",
  });
  const wallet = h("input", {
    id: "claim-wallet",
    name: "wallet",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    value: me.payoutWallet ?? "",
    className: "mono",
  });
  return { amount, wallet };
}

function claimFailedNotice(error: unknown): HTMLElement {
  return errorBox(
    error instanceof ApiError && error.status === 401 ? new Error("Your session ended; sign in again.") : inSol(error),
  );
}

function finalPayoutNotice(payout: SignedInMe["payouts"][number]): HTMLElement {
  return payout.status === "confirmed"
    ? notice(`Your claim of ${sol(payout.lamports)} (payout #${payout.id}) is confirmed on chain.`, "ok")
    : notice(
        `Your claim of ${sol(payout.lamports)} (payout #${payout.id}) ${payout.status === "failed" ? "failed" : "was replaced"}; the amount is back in your balance unless a replacement was sent.`,
        "warn",
      );
}

/** Whether the balance reaches the smallest claim (not while reconciling: there is no balance to claim from yet). */
function claimable(me: SignedInMe): boolean {
  return me.balanceLamports !== null && BigInt(me.balanceLamports) >= BigInt(me.minClaimLamports);
}

/** The claim the form asks for, or null once the form has said what to fix (and focused that field). */
function claimBody(
  current: SignedInMe,
  wallet: HTMLInputElement,
  amount: HTMLInputElement,
  status: HTMLElement,
): { wallet: string; lamports?: string } | null {
  const body: { wallet: string; lamports?: string } = { wallet: wallet.value.trim() };
  if (!BASE58_ADDRESS.test(body.wallet)) {
    status.replaceChildren(errorBox(new Error("Enter a Solana wallet address (base58).")));
    wallet.focus();
    return null;
  }
  if (amount.value.trim()) {
    const lamports = solToLamports(amount.value);
    if (lamports === null || lamports === 0n) {
      status.replaceChildren(
        errorBox(new Error("Enter an amount in SOL with at most nine decimals, or leave it empty.")),
      );
      amount.focus();
      return null;
    }
    if (lamports < BigInt(current.minClaimLamports)) {
      status.replaceChildren(errorBox(new Error(`The smallest claim is ${sol(current.minClaimLamports)}.`)));
      amount.focus();
      return null;
    }
    if (current.balanceLamports === null || lamports > BigInt(current.balanceLamports)) {
      status.replaceChildren(errorBox(new Error(`That is more than your balance of ${sol(current.balanceLamports)}.`)));
      amount.focus();
      return null;
    }
    body.lamports = lamports.toString();
  }
  return body;
}

/** SPEC: switching to autopay with a balance above the threshold also pays that balance on the next payout run. */
function routingSaved(routing: Routing, me: SignedInMe): string {
  if (routing !== "autopay") return `Saved: new fees are set to ${routing}. This applies from the next sweep.`;
  const balance = me.balanceLamports === null ? null : BigInt(me.balanceLamports);
  if (balance !== null && balance > BigInt(me.autopayMinLamports)) {
    return `Saved: autopay is on. Your current balance of ${sol(me.balanceLamports)} is paid to your wallet on the next payout run, and new fees from the next sweep on.`;
  }
  return `Saved: autopay is on for new fees from the next sweep on. Your balance is paid once it is above ${sol(me.autopayMinLamports)}.`;
}

function routingForm(get: () => SignedInMe, refresh: () => Promise<void>, signal: AbortSignal): HTMLElement {
  const me = get();
  const wallet = h("input", {
    id: "routing-wallet",
    name: "wallet",
    autocomplete: "off",
    spellcheck: "false",
    value: me.payoutWallet ?? "",
    className: "mono",
  });
  const status = h("div", { id: "routing-status", "aria-live": "polite" });
  const walletRow = autopayWalletRow(wallet, status, signal);
  const ack = h("input", { type: "checkbox", id: "decline-ack" });
  const declineRow = h(
    "div",
    { className: "decline-ack" },
    ack,
    h(
      "label",
      { for: "decline-ack" },
      " I decline publicly: everything credited to me from now on is bought back and burned, and my public page says so.",
    ),
  );
  const button = h("button", { type: "submit" }, "Save routing");
  const confirmDialog = declineDialog();
  const form = h(
    "form",
    { className: "stack panel", id: "routing-form" },
    h("h2", null, "What happens to new fees"),
    routingChoices(me.declined ? "decline" : me.routing),
    walletRow,
    declineRow,
    button,
    status,
    confirmDialog,
  );
  const selected = () => form.querySelector<HTMLInputElement>('input[name="routing"]:checked')?.value ?? "hold";
  const sync = () => {
    walletRow.hidden = selected() !== "autopay";
    declineRow.hidden = selected() !== "decline";
  };
  form.addEventListener("change", sync);
  sync();

  const save = async (routing: Routing, declined: boolean) => {
    const body: { routing: Routing; declined: boolean; wallet?: string | null } = { routing, declined };
    if (routing === "autopay") body.wallet = wallet.value.trim();
    button.disabled = true;
    status.replaceChildren(loading("Saving…"));
    try {
      await api("/api/routing", { body });
      status.replaceChildren(notice(declined ? "Saved: you declined publicly." : routingSaved(routing, get()), "ok"));
      await refresh();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const value = selected();
    if (value === "autopay" && !BASE58_ADDRESS.test(wallet.value.trim())) {
      status.replaceChildren(errorBox(new Error("Autopay needs a Solana wallet address.")));
      wallet.focus();
      return;
    }
    if (value === "decline") {
      if (!ack.checked) {
        status.replaceChildren(errorBox(new Error("Tick the box to confirm you decline publicly.")));
        ack.focus();
        return;
      }
      askToDecline(confirmDialog, status, () => void save("burn", true));
      return;
    }
    void save(value as Routing, false);
  });
  return form;
}

/** The autopay address, which a browser wallet can fill in as it does the claim's. */
function autopayWalletRow(wallet: HTMLInputElement, status: HTMLElement, signal: AbortSignal): HTMLElement {
  const label = h("label", { for: "routing-wallet" }, "Autopay wallet");
  return h("div", { className: "stack" }, label, wallet, walletChooser(wallet, status, signal, "routing"));
}

/** The four routings as radio buttons, `choice` checked. */
function routingChoices(choice: string): HTMLElement {
  const option = (value: string, label: string, help: string) =>
    h(
      "label",
      { className: "choice" },
      h("input", { type: "radio", name: "routing", value, checked: choice === value }),
      h("span", null, h("strong", null, label), h("span", { className: "muted" }, ` ${help}`)),
    );
  return h(
    "fieldset",
    null,
    h("legend", { className: "visually-hidden" }, "Routing"),
    option("hold", "Hold", "Keep them in your balance until you claim."),
    option("autopay", "Autopay", "Pay them to your wallet automatically once above the autopay threshold."),
    option("burn", "Burn", "Spend them on buys of the token that are then burned."),
    option("decline", "Decline publicly", "Refuse the fees in public; they are bought back and burned."),
  );
}

/** The last word before declining in public, which the user's public page then shows. */
function declineDialog(): HTMLDialogElement {
  return h(
    "dialog",
    { id: "decline-dialog", "aria-labelledby": "decline-title" },
    h("h2", { id: "decline-title" }, "Decline publicly?"),
    h(
      "p",
      null,
      "Your credits will be bought back and burned instead of paid to you. This is shown on your public page.",
    ),
    h(
      "form",
      { method: "dialog", className: "row" },
      h("button", { value: "cancel", className: "secondary" }, "Cancel"),
      h("button", { value: "confirm", id: "decline-confirm" }, "Yes, decline publicly"),
    ),
  );
}

function askToDecline(dialog: HTMLDialogElement, status: HTMLElement, confirmed: () => void): void {
  dialog.returnValue = "";
  dialog.showModal();
  dialog.addEventListener(
    "close",
    () => {
      if (dialog.returnValue === "confirm") confirmed();
      else status.replaceChildren(notice("Nothing changed.", "info"));
    },
    { once: true },
  );
}
