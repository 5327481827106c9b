/**
 * The operator page (/admin): sign in with the admin secret (posted once, kept by the server as an
 * HttpOnly session cookie, never in the URL or the page's storage), then job health and recent
 * runs with their errors, custody, the program watch, tokens the money jobs set aside, hide/unhide,
 * pauses, thresholds, webhooks and the audit log. Every change is an admin API call, and the server
 * audits each one.
 * Set-aside tokens and webhooks come from routes other parts of the service add; until they
 * exist (404) the page says so.
 */
import { api, ApiError } from "../api";
import { h } from "../dom";
import { lamportsToSol, solToLamports } from "../money";
import type { AdminOverview, AdminToken, AuditRow, DeliveryView, WebhookView } from "../../../src/api-types";
import { absoluteTime } from "../time";
import { loadCustody } from "./admin-custody";
import { loadPrograms } from "./admin-programs";
import { errorBox, loading, longValue, notice, statusBadge, table, time, when } from "../ui";

interface SetAsideItem {
  mint: string;
  symbol: string | null;
  job: "sweep" | "burns";
  reason: string;
  failures: number;
  since: string;
  retryAt: string | null;
}
type Webhook = WebhookView;
type Delivery = DeliveryView;

const NOT_AVAILABLE = "Not available on this deployment yet.";

export async function adminPage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  root.append(h("h1", null, "Operator"), loading());
  let signedIn: boolean;
  try {
    signedIn = (await api<{ signedIn: boolean }>("/api/admin/session", { signal })).signedIn;
  } catch (error) {
    if (signal.aborted) return;
    root.replaceChildren(
      h("h1", null, "Operator"),
      error instanceof ApiError && error.status === 404
        ? notice(
            "The operator page is off: neither ADMIN_SECRET nor ADMIN_OPERATORS_FILE is set on this deployment.",
            "info",
          )
        : errorBox(error),
    );
    return;
  }
  if (signal.aborted) return;
  if (!signedIn) signInForm(root, signal);
  else dashboard(root, signal);
}

function signInForm(root: HTMLElement, signal: AbortSignal): void {
  // A named operator's name (ADMIN_OPERATORS_FILE); left empty, the secret is the shared ADMIN_SECRET.
  const operator = h("input", { type: "text", id: "admin-operator", name: "operator", autocomplete: "username" });
  const secret = h("input", {
    type: "password",
    id: "admin-secret",
    name: "secret",
    autocomplete: "current-password",
    required: true,
  });
  const status = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { className: "panel", method: "post", action: "/api/admin/session" },
    h("label", { for: "admin-operator" }, "Operator name (empty with the shared key)"),
    operator,
    h("label", { for: "admin-secret" }, "Admin secret"),
    secret,
    h("p", null, h("button", { type: "submit" }, "Sign in")),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.replaceChildren(loading("Signing in…"));
    try {
      const name = operator.value.trim();
      await api("/api/admin/session", {
        method: "POST",
        body: name === "" ? { secret: secret.value } : { operator: name, secret: secret.value },
      });
      secret.value = "";
      root.replaceChildren();
      dashboard(root, signal);
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  });
  root.replaceChildren(
    h("h1", null, "Operator"),
    h("p", { className: "muted" }, "For the team running this service."),
    form,
  );
}

/** A section whose body is rebuilt by `load`, with the function that rebuilds it. */
function section(
  id: string,
  title: string,
  load: (body: HTMLElement) => Promise<void>,
  signal: AbortSignal,
): { el: HTMLElement; reload: () => void } {
  const body = h("div", null, loading());
  const reload = () => {
    void (async () => {
      try {
        await load(body);
      } catch (error) {
        if (!signal.aborted) body.replaceChildren(errorBox(error, reload));
      }
    })();
  };
  reload();
  return {
    el: h("section", { id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), body),
    reload,
  };
}

/** Runs an admin action and shows its outcome next to the control. */
async function act(status: HTMLElement, work: () => Promise<unknown>, done: string, after: () => void): Promise<void> {
  status.replaceChildren(loading("Working…"));
  try {
    await work();
    status.replaceChildren(notice(done, "ok"));
    after();
  } catch (error) {
    status.replaceChildren(errorBox(error));
  }
}

/**
 * Asks the operator to confirm an action and say why: the reason is required and goes to the
 * audit log with the action. Resolves to the reason, or null when cancelled.
 */
export function askReason(options: { title: string; text: string; confirm: string }): Promise<string | null> {
  return new Promise((resolve) => {
    const reason = h("textarea", {
      id: "admin-reason",
      name: "reason",
      rows: 3,
      maxlength: 500,
      required: true,
      "aria-describedby": "admin-reason-help",
    });
    const problem = h("p", { className: "field-error", id: "admin-reason-error", role: "alert", hidden: true });
    const confirm = h("button", { type: "submit", id: "admin-confirm" }, options.confirm);
    const cancel = h("button", { type: "button", className: "secondary", id: "admin-cancel" }, "Cancel");
    const form = h(
      "form",
      { className: "stack", method: "dialog", novalidate: true },
      h("h2", { id: "admin-dialog-title" }, options.title),
      h("p", null, options.text),
      h("label", { for: "admin-reason" }, "Reason"),
      reason,
      h("p", { className: "muted small", id: "admin-reason-help" }, "Required. Kept in the audit log with the action."),
      problem,
      h("div", { className: "row wrap" }, confirm, cancel),
    );
    const dialog = h("dialog", { id: "admin-dialog", "aria-labelledby": "admin-dialog-title" }, form);
    let answer: string | null = null;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = reason.value.trim();
      if (!text) {
        problem.textContent = "Say why: the reason is kept in the audit log.";
        problem.hidden = false;
        reason.setAttribute("aria-invalid", "true");
        reason.setAttribute("aria-describedby", "admin-reason-help admin-reason-error");
        reason.focus();
        return;
      }
      answer = text;
      dialog.close();
    });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener(
      "close",
      () => {
        dialog.remove();
        resolve(answer);
      },
      { once: true },
    );
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  });
}

/** A confirmed, reasoned admin action: asks, then runs it with the reason and shows the outcome. */
async function confirmAndAct(
  status: HTMLElement,
  question: { title: string; text: string; confirm: string },
  work: (reason: string) => Promise<unknown>,
  done: string,
  after: () => void,
): Promise<void> {
  const reason = await askReason(question);
  if (reason === null) {
    status.replaceChildren(notice("Nothing changed.", "info"));
    return;
  }
  await act(status, () => work(reason), done, after);
}

const RUNS_PER_PAGE = 10;

/** The recent runs, ten at a time, so a busy history does not push the rest of the page down. */
function runsTable(runs: AdminOverview["runs"]): HTMLElement {
  const slot = h("div", { id: "admin-runs" });
  let page = 0;
  const pages = Math.max(1, Math.ceil(runs.length / RUNS_PER_PAGE));
  const newer = h("button", { type: "button", className: "secondary", id: "admin-runs-newer" }, "Newer runs");
  const older = h("button", { type: "button", className: "secondary", id: "admin-runs-older" }, "Older runs");
  // Keeps the keyboard on the pager: on the button pressed, or the other one at either end.
  const turn = (by: number) => {
    page += by;
    paint();
    (by > 0 ? (older.disabled ? newer : older) : newer.disabled ? older : newer).focus();
  };
  newer.addEventListener("click", () => turn(-1));
  older.addEventListener("click", () => turn(1));
  const paint = () => {
    const from = page * RUNS_PER_PAGE;
    const shown = runs.slice(from, from + RUNS_PER_PAGE);
    newer.disabled = page === 0;
    older.disabled = page >= pages - 1;
    slot.replaceChildren(
      table(
        ["Job", "Started", "Outcome", "Error"],
        shown.map((r) => [
          r.job,
          when(r.startedAt),
          r.ok === null
            ? statusBadge("running")
            : r.ok
              ? h("span", { className: "badge ok" }, "ok")
              : h("span", { className: "badge bad" }, "failed"),
          r.error ?? "–",
        ]),
        "The most recent job runs, newest first",
      ),
      runs.length > RUNS_PER_PAGE
        ? h(
            "div",
            { className: "row wrap pager" },
            newer,
            h(
              "span",
              { className: "muted", "aria-live": "polite", id: "admin-runs-range" },
              `Runs ${from + 1}–${from + shown.length} of ${runs.length}`,
            ),
            older,
          )
        : "",
    );
  };
  paint();
  return slot;
}

function dashboard(root: HTMLElement, signal: AbortSignal): void {
  const { head, signOutAllStatus } = dashboardHead(root, signal);

  // After any action: the figures it changed and the audit row it wrote.
  const reloadAll = () => {
    overview.reload();
    setAside.reload();
    custody.reload();
    programs.reload();
    audit.reload();
  };

  const controls = h("div", { id: "admin-controls" }, loading());
  const overview = jobsSection(controls, signal, reloadAll);
  const setAside = setAsideSection(signal, reloadAll);
  const custodyStatus = h("div", { "aria-live": "polite", id: "admin-custody-status" });
  const custody = section(
    "admin-custody",
    "Custody",
    (body) => loadCustody(body, signal, confirmAndAct, reloadAll, custodyStatus),
    signal,
  );
  const programsStatus = h("div", { "aria-live": "polite", id: "admin-programs-status" });
  const programs = section(
    "admin-programs",
    "Programs",
    (body) => loadPrograms(body, signal, confirmAndAct, reloadAll, programsStatus),
    signal,
  );
  const audit = auditSection(signal);

  root.replaceChildren(
    head,
    signOutAllStatus,
    overview.el,
    custody.el,
    programs.el,
    controls,
    setAside.el,
    tokenSection(signal, reloadAll),
    webhookSection(signal, reloadAll),
    audit.el,
  );
}

/** The page's heading with its two ways out: this session, or every session. */
function dashboardHead(root: HTMLElement, signal: AbortSignal): { head: HTMLElement; signOutAllStatus: HTMLElement } {
  const signOut = h("button", { type: "button", className: "secondary", id: "admin-sign-out" }, "Sign out");
  signOut.addEventListener("click", async () => {
    try {
      await api("/api/admin/session", { method: "DELETE" });
    } finally {
      signInForm(root, signal);
    }
  });
  // Every page session, this one included (after a lost laptop, say); the bearer keeps working.
  const signOutAll = h(
    "button",
    { type: "button", className: "secondary", id: "admin-sign-out-all" },
    "End all sessions",
  );
  const signOutAllStatus = h("div", { "aria-live": "polite" });
  signOutAll.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        signOutAllStatus,
        {
          title: "End every /admin session?",
          text: "Everyone signed in to this page, you included, must sign in again with the admin secret.",
          confirm: "End all sessions",
        },
        (reason) => api("/api/admin/sessions", { method: "DELETE", body: { reason } }),
        "Every session is signed out.",
        () => signInForm(root, signal),
      ),
  );
  const head = h(
    "header",
    { className: "account-head" },
    h("h1", null, "Operator"),
    h("span", { className: "inline" }, signOut, signOutAll),
  );
  return { head, signOutAllStatus };
}

/** Job health and recent runs; the same answer fills `controls` with the pauses and thresholds. */
function jobsSection(
  controls: HTMLElement,
  signal: AbortSignal,
  reloadAll: () => void,
): { el: HTMLElement; reload: () => void } {
  return section(
    "admin-jobs",
    "Jobs",
    async (body) => {
      const o = await api<AdminOverview>("/api/admin/overview", { signal });
      const paused = new Set<string>(o.health.programChange?.pausedJobs ?? []);
      body.replaceChildren(
        healthLine(o.health.ok),
        table(
          ["Job", "State", "Last run", "Last success", "Runs", "Last error"],
          o.health.jobs.map((j) => [
            j.job,
            j.running
              ? statusBadge("running")
              : paused.has(j.job)
                ? h("span", { className: "badge bad", title: "a program changed: see Programs" }, "paused")
                : !j.configured
                  ? h("span", { className: "badge", title: "nothing to do on this deployment" }, "not used")
                  : j.stale
                    ? h("span", { className: "badge bad" }, "stale")
                    : h("span", { className: "badge ok" }, "fresh"),
            time(j.lastRunAt),
            time(j.lastOkAt),
            String(j.runs),
            j.lastError ?? "–",
          ]),
          "Job health",
        ),
        ...backupLine(o.health.backup),
        h("h3", null, "Recent runs"),
        o.runs.length === 0 ? h("p", { className: "empty" }, "No runs yet.") : runsTable(o.runs),
      );
      controls.replaceChildren(pauses(o, reloadAll), thresholds(o, reloadAll));
    },
    signal,
  );
}

/** The service's health as `/api/cron/health` answers it (the same report, so the same verdict). */
function healthLine(ok: boolean): HTMLElement {
  return h(
    "p",
    { id: "admin-health", "data-ok": String(ok) },
    "Health: ",
    h("span", { className: `badge ${ok ? "ok" : "bad"}` }, ok ? "ok" : "not ok"),
  );
}

/** One line on the off-site backups (BACKUP_URL): whether they keep up, and the store's last error. */
function backupLine(b: AdminOverview["health"]["backup"]): HTMLElement[] {
  if (!b) return [];
  const size = b.lastSizeBytes === null ? "–" : `${(b.lastSizeBytes / 1_048_576).toFixed(1)} MiB`;
  return [
    h(
      "p",
      { "data-backup": b.ok ? "ok" : "failing" },
      "Off-site backups: ",
      h("span", { className: `badge ${b.ok ? "ok" : "bad"}` }, b.ok ? "ok" : "failing"),
      " last success ",
      time(b.lastOkAt),
      `; ${b.missedGenerations} missed, ${b.failuresTotal} failed in all, last size ${size}`,
      b.lastError ? `; last error: ${b.lastError}` : "",
    ),
  ];
}

function setAsideSection(signal: AbortSignal, reloadAll: () => void): { el: HTMLElement; reload: () => void } {
  const status = h("div", { "aria-live": "polite" });
  return section(
    "admin-set-aside",
    "Tokens set aside by the jobs",
    async (body) => {
      let items: SetAsideItem[];
      try {
        items = (await api<{ items: SetAsideItem[] }>("/api/admin/set-aside", { signal })).items;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          body.replaceChildren(h("p", { className: "empty", "data-unavailable": "set-aside" }, NOT_AVAILABLE));
          return;
        }
        throw error;
      }
      body.replaceChildren(
        items.length === 0
          ? h("p", { className: "empty" }, "None: every token is being swept and burned normally.")
          : table(
              ["Token", "Job", "Why", "Failures", "Since", "Next try", "Action"],
              items.map((i) => setAsideRow(i, status, reloadAll)),
              "Tokens the money jobs skip for now",
            ),
        status,
      );
    },
    signal,
  );
}

function setAsideRow(i: SetAsideItem, status: HTMLElement, reloadAll: () => void): (Node | string)[] {
  const clear = h(
    "button",
    { type: "button", className: "secondary", "aria-label": `Clear ${i.symbol ?? i.mint} (${i.job})` },
    "Clear",
  );
  clear.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: `Clear ${i.symbol ? `$${i.symbol}` : "this token"} for the ${i.job} job?`,
          text:
            i.retryAt === null
              ? "The stop is re-checked against the chain first; while the sweep still disagrees, nothing is cleared."
              : "The job tries this token again on its next run instead of waiting.",
          confirm: "Clear",
        },
        (reason) =>
          api(`/api/admin/set-aside/${encodeURIComponent(i.mint)}/clear`, {
            method: "POST",
            body: { job: i.job, reason },
          }),
        `${i.symbol ? `$${i.symbol}` : "The token"} is cleared for the ${i.job} job.`,
        reloadAll,
      ),
  );
  return [
    h("span", null, i.symbol ? `$${i.symbol} ` : "", longValue(i.mint, "mint address")),
    i.job,
    i.reason,
    String(i.failures),
    time(i.since),
    i.retryAt ? time(i.retryAt) : "not scheduled",
    clear,
  ];
}

function auditSection(signal: AbortSignal): { el: HTMLElement; reload: () => void } {
  return section(
    "admin-audit",
    "Audit log",
    async (body) => {
      const { entries } = await api<{ entries: AuditRow[] }>("/api/admin/audit?limit=50", { signal });
      body.replaceChildren(
        entries.length === 0
          ? h("p", { className: "empty" }, "No admin actions yet.")
          : table(
              ["When", "Who", "Action", "Subject", "Reason"],
              entries.map((e) => [time(e.at), e.actor, e.action, e.subject ?? "–", e.reason ?? "–"]),
              "Admin actions, newest first",
            ),
      );
    },
    signal,
  );
}

function pauses(o: AdminOverview, after: () => void): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  // `paused` is what the pause/resume control sets; `refused`, whether the API refuses now (for
  // claims, a custody halt refuses them too, and only Custody's resume lifts it).
  const toggle = (what: "claims" | "launches", paused: boolean, refused = paused, why: string | null = null) => {
    const button = h(
      "button",
      { type: "button", className: paused ? "" : "secondary", id: `admin-${what}-toggle` },
      paused ? `Resume ${what}` : `Pause ${what}`,
    );
    button.addEventListener(
      "click",
      () =>
        void confirmAndAct(
          status,
          {
            title: `${paused ? "Resume" : "Pause"} ${what}?`,
            text: paused
              ? `${what === "claims" ? "Claims and payouts go out again" : "New launches are accepted again"} from now on.`
              : what === "claims"
                ? "No claim is accepted and no payout is sent until claims resume; balances stay as they are."
                : "No new launch is accepted until launches resume.",
            confirm: paused ? `Resume ${what}` : `Pause ${what}`,
          },
          (reason) => api(`/api/admin/${what}/${paused ? "resume" : "pause"}`, { method: "POST", body: { reason } }),
          `${what[0]!.toUpperCase()}${what.slice(1)} ${paused ? "resumed" : "paused"}.`,
          after,
        ),
    );
    return h(
      "p",
      null,
      h("strong", null, `${what[0]!.toUpperCase()}${what.slice(1)}: `),
      refused ? h("span", { className: "badge bad" }, "paused") : h("span", { className: "badge ok" }, "open"),
      " ",
      button,
      refused && !paused ? h("span", { className: "muted" }, ` ${why ?? ""} Money is halted: see Custody.`) : "",
    );
  };
  return h(
    "section",
    { id: "admin-pauses", "aria-labelledby": "admin-pauses-title" },
    h("h2", { id: "admin-pauses-title" }, "Pauses"),
    toggle("claims", o.settings.claimsPausedByOperator, o.settings.claimsPaused, o.settings.claimsPausedReason),
    toggle("launches", o.settings.launchesPaused),
    status,
  );
}

function thresholds(o: AdminOverview, after: () => void): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  const row = (id: string, label: string, lamports: string, route: string) => {
    const input = h("input", {
      id,
      inputmode: "decimal",
      value: lamportsToSol(lamports).replace(/,/g, ""),
      "aria-describedby": `${id}-hint`,
    });
    const save = h("button", { type: "button", className: "secondary" }, "Save");
    save.addEventListener("click", () => {
      const value = solToLamports(input.value);
      if (value === null) {
        status.replaceChildren(errorBox(new Error("Enter an amount in SOL with at most nine decimals.")));
        return;
      }
      void confirmAndAct(
        status,
        {
          title: `Set the ${label.toLowerCase()} to ${lamportsToSol(value)} SOL?`,
          text: `It is ${lamportsToSol(lamports)} SOL now; the new value applies at once.`,
          confirm: "Save",
        },
        (reason) => api(route, { method: "POST", body: { lamports: value.toString(), reason } }),
        `${label} set to ${lamportsToSol(value)} SOL.`,
        after,
      );
    });
    return h(
      "div",
      { className: "field" },
      h("label", { for: id }, `${label} (SOL)`),
      h("div", { className: "inline" }, input, save),
      h("p", { className: "muted", id: `${id}-hint` }, `Now ${lamportsToSol(lamports)} SOL.`),
    );
  };
  return h(
    "section",
    { id: "admin-thresholds", "aria-labelledby": "admin-thresholds-title" },
    h("h2", { id: "admin-thresholds-title" }, "Thresholds"),
    row("admin-min-claim", "Minimum claim", o.settings.minClaimLamports, "/api/admin/min-claim"),
    row("admin-autopay-min", "Autopay minimum", o.settings.autopayMinLamports, "/api/admin/autopay-min"),
    status,
  );
}

function tokenSection(signal: AbortSignal, after: () => void): HTMLElement {
  const search = h("input", { type: "search", id: "admin-token-search", placeholder: "Name, ticker or mint" });
  const list = h("div", null, loading());
  const status = h("div", { "aria-live": "polite" });
  let tokens: AdminToken[] = [];
  let first = 0;
  const turnTo = (start: number) => {
    first = start;
    show();
  };
  const changed = () => {
    void load(true);
    after();
  };
  const show = () => {
    const shown = tokens.slice(first, first + ADMIN_TOKENS_PER_PAGE);
    list.replaceChildren(
      tokens.length === 0
        ? h("p", { className: "empty" }, "No token matches.")
        : table(
            ["Token", "Mint", "Launched", "Explore", "Action"],
            shown.map((t) => tokenRow(t, status, changed)),
            "Tokens, hidden ones first",
          ),
      tokens.length > ADMIN_TOKENS_PER_PAGE ? pager(first, tokens.length, turnTo) : "",
    );
  };
  /** Reads the list again; `keepPage` after a hide or unhide, so the operator stays where they were. */
  const load = async (keepPage = false) => {
    try {
      tokens = (
        await api<{ tokens: AdminToken[] }>(`/api/admin/tokens?q=${encodeURIComponent(search.value.trim())}`, {
          signal,
        })
      ).tokens;
      if (!keepPage || first >= tokens.length) first = 0;
      show();
    } catch (error) {
      if (!signal.aborted) list.replaceChildren(errorBox(error));
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void load(), 250);
  });
  void load();
  return h(
    "section",
    { id: "admin-tokens", "aria-labelledby": "admin-tokens-title" },
    h("h2", { id: "admin-tokens-title" }, "Tokens"),
    h("div", { className: "field" }, h("label", { for: "admin-token-search" }, "Find a token"), search),
    status,
    list,
  );
}

/** One row of the operator's token list: the token, its state on Explore, and Hide or Unhide. */
function tokenRow(t: AdminToken, status: HTMLElement, changed: () => void): (Node | string)[] {
  const button = h(
    "button",
    { type: "button", className: t.hidden ? "" : "secondary", "data-mint": t.mint },
    t.hidden ? "Unhide" : "Hide",
  );
  button.setAttribute("aria-label", `${t.hidden ? "Unhide" : "Hide"} ${t.name}`);
  button.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: `${t.hidden ? "Unhide" : "Hide"} ${t.name} ($${t.symbol})?`,
          text: t.hidden
            ? "It is listed on Explore again."
            : "It leaves Explore; it is still swept, its recipients are still paid, and its page still answers.",
          confirm: t.hidden ? "Unhide" : "Hide",
        },
        (reason) =>
          api(`/api/admin/tokens/${encodeURIComponent(t.mint)}/${t.hidden ? "unhide" : "hide"}`, {
            method: "POST",
            body: { reason },
          }),
        `${t.name} is ${t.hidden ? "shown on Explore again" : "hidden from Explore"}.`,
        changed,
      ),
  );
  return [
    `${t.name} ($${t.symbol})`,
    longValue(t.mint, "mint address"),
    time(t.launchedAt),
    t.hidden ? h("span", { className: "badge bad" }, "hidden") : h("span", { className: "badge ok" }, "listed"),
    button,
  ];
}

/** The token list a page at a time: a phone showed all 50 rows at once, 9,000 px tall. */
const ADMIN_TOKENS_PER_PAGE = 20;

/** "Tokens 21–40 of 50" with Previous and Next. */
function pager(first: number, total: number, go: (first: number) => void): HTMLElement {
  const last = Math.min(first + ADMIN_TOKENS_PER_PAGE, total);
  return h(
    "nav",
    { className: "row wrap pager", "aria-label": "Token pages" },
    h(
      "button",
      {
        type: "button",
        className: "secondary",
        disabled: first === 0,
        onclick: () => go(Math.max(0, first - ADMIN_TOKENS_PER_PAGE)),
      },
      "Previous",
    ),
    h("span", { className: "muted", "aria-live": "polite" }, `Tokens ${first + 1}–${last} of ${total}`),
    h("button", { type: "button", className: "secondary", disabled: last >= total, onclick: () => go(last) }, "Next"),
  );
}

function webhookSection(signal: AbortSignal, after: () => void): HTMLElement {
  const body = h("div", null, loading());
  const status = h("div", { "aria-live": "polite" });
  const deliveries = h("div");
  const changed = () => {
    void load();
    after();
  };
  const load = async () => {
    let hooks: Webhook[];
    try {
      hooks = (await api<{ webhooks: Webhook[] }>("/api/admin/webhooks", { signal })).webhooks;
    } catch (error) {
      if (signal.aborted) return;
      body.replaceChildren(
        error instanceof ApiError && error.status === 404
          ? h("p", { className: "empty", "data-unavailable": "webhooks" }, NOT_AVAILABLE)
          : errorBox(error),
      );
      return;
    }
    const add = addWebhookForm(status, changed);
    body.replaceChildren(
      hooks.length === 0
        ? h("p", { className: "empty" }, "No webhooks.")
        : table(
            ["URL", "Types", "State", "Added", "Actions"],
            hooks.map((w) => webhookRow(w, status, () => void showDeliveries(w), changed)),
            "Webhooks",
          ),
      add,
    );
  };
  const showDeliveries = async (w: Webhook) => {
    deliveries.replaceChildren(loading());
    try {
      const list = (
        await api<{ deliveries: Delivery[] }>(`/api/admin/webhooks/${encodeURIComponent(w.id)}/deliveries`, { signal })
      ).deliveries;
      deliveries.replaceChildren(
        h("h3", null, `Deliveries to ${w.url}`),
        list.length === 0
          ? h("p", { className: "empty" }, "No deliveries yet.")
          : table(
              ["Event", "Attempt", "Status", "HTTP", "When", "Next attempt", "Error"],
              list.map((d) => [
                d.eventId,
                String(d.attempt),
                statusBadge(d.status),
                d.httpStatus === null ? "–" : String(d.httpStatus),
                time(d.at),
                d.nextAttemptAt ? time(d.nextAttemptAt) : "–",
                d.error ?? "–",
              ]),
              "Recent deliveries",
            ),
      );
    } catch (error) {
      deliveries.replaceChildren(errorBox(error));
    }
  };
  void load();
  return h(
    "section",
    { id: "admin-webhooks", "aria-labelledby": "admin-webhooks-title" },
    h("h2", { id: "admin-webhooks-title" }, "Webhooks"),
    body,
    status,
    deliveries,
  );
}

/** Adds a webhook and shows its signing secret, the only time the page ever sees it. */
function addWebhookForm(status: HTMLElement, added: () => void): HTMLElement {
  const url = h("input", {
    type: "url",
    id: "admin-webhook-url",
    placeholder: "https://example.com/hook",
    required: true,
  });
  const types = h("input", { id: "admin-webhook-types", placeholder: "all event types" });
  const add = h(
    "form",
    { className: "inline" },
    h("label", { for: "admin-webhook-url" }, "URL"),
    url,
    h("label", { for: "admin-webhook-types" }, "Types (comma-separated)"),
    types,
    h("button", { type: "submit" }, "Add webhook"),
  );
  add.addEventListener("submit", (event) => {
    event.preventDefault();
    const list = types.value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    void (async () => {
      status.replaceChildren(loading("Adding…"));
      try {
        const created = await api<{ id: string; secret: string }>("/api/admin/webhooks", {
          method: "POST",
          body: list.length ? { url: url.value, types: list } : { url: url.value },
        });
        status.replaceChildren(
          notice(
            h(
              "span",
              null,
              "Added. Its signing secret, shown once: ",
              h("code", { className: "break" }, created.secret),
            ),
            "ok",
          ),
        );
        added();
      } catch (error) {
        status.replaceChildren(errorBox(error));
      }
    })();
  });
  return add;
}

function webhookRow(
  w: Webhook,
  status: HTMLElement,
  showDeliveries: () => void,
  deleted: () => void,
): (Node | string)[] {
  const show = h("button", { type: "button", className: "secondary" }, "Deliveries");
  show.addEventListener("click", showDeliveries);
  const remove = h("button", { type: "button", className: "secondary" }, "Delete");
  remove.setAttribute("aria-label", `Delete the webhook to ${w.url}`);
  show.setAttribute("aria-label", `Deliveries to ${w.url}`);
  remove.addEventListener("click", () => {
    void confirmAndAct(
      status,
      {
        title: "Delete this webhook?",
        text: `Nothing more is sent to ${w.url}; its waiting deliveries are dropped.`,
        confirm: "Delete",
      },
      (reason) => api(`/api/admin/webhooks/${encodeURIComponent(w.id)}`, { method: "DELETE", body: { reason } }),
      "Webhook deleted.",
      deleted,
    );
  });
  return [
    h("span", { className: "break" }, w.url),
    w.types ? w.types.join(", ") : "all",
    !w.enabled
      ? h("span", { className: "badge" }, "disabled")
      : w.failingSince
        ? h("span", { className: "badge bad", title: `failing since ${absoluteTime(w.failingSince)}` }, "failing")
        : h("span", { className: "badge ok" }, "ok"),
    time(w.createdAt),
    h("span", null, show, " ", remove),
  ];
}
