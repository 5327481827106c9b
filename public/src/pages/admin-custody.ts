/**
 * The custody part of /admin (src/custody, docs/custody.md): the halt and its incidents with the
 * resume, payouts held for review (approve or refuse), and platform withdrawals to PLATFORM_WALLET.
 * Every action asks for a reason, which the server audits with it.
 */
import { api } from "../api";
import { h } from "../dom";
import { lamportsToSol, solToLamports } from "../money";
import { errorBox, longValue, notice, table, time } from "../ui";

/** The newest reconciliation of the books with the treasury's history (src/reconcile). */
interface ReconciliationView {
  status: "scanning" | "applying" | "done" | "blocked";
  reason: "restore" | "start";
  scanned: number;
  total: number;
  applied: number;
  unknown: number;
  startedAt: string;
  finishedAt: string | null;
}

/** One line on its progress: what was read, what is applied, what nobody can account for. */
function reconciliationLine(r: ReconciliationView | null): HTMLElement | null {
  if (!r) return null;
  const why = r.reason === "restore" ? "after a restore" : "at a start that found an unknown treasury transaction";
  const counts = `${r.applied} of ${r.total} treasury transactions applied (${r.scanned} read), ${r.unknown} unknown`;
  const running = r.status === "scanning" || r.status === "applying";
  return h(
    "p",
    { id: "admin-reconciliation" },
    running ? "Reconciling with the chain " : `Last reconciliation with the chain (${r.status}) `,
    why,
    ": ",
    counts,
    ". Started ",
    time(r.startedAt),
    r.finishedAt ? h("span", null, ", finished ", time(r.finishedAt)) : "",
    ".",
  );
}

interface IncidentView {
  id: number;
  kind: string;
  detail: string;
  halts: boolean;
  at: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolveReason: string | null;
}

interface WaitingRow {
  id: number;
  lamports: string;
}

/** While money is halted: the rows waiting to leave, which a resume releases (and the page names back by id). */
interface WaitingView {
  payouts: WaitingRow[];
  withdrawals: WaitingRow[];
  burnOrders: WaitingRow[];
  totalLamports: string;
}

interface HeldPayoutView {
  payoutId: number;
  idpUserId: string;
  lamports: string;
  wallet: string;
  kind: string;
  createdAt: string;
}

interface WithdrawalView {
  id: number;
  lamports: string;
  wallet: string;
  reason: string;
  actor: string;
  status: string;
  signature: string | null;
  error: string | null;
  createdAt: string;
}

type Confirm = (
  status: HTMLElement,
  question: { title: string; text: string; confirm: string },
  work: (reason: string) => Promise<unknown>,
  done: string,
  after: () => void,
) => Promise<void>;

/** What every custody control needs to ask for a reason, act, and show the outcome. */
interface CustodyActions {
  confirmAndAct: Confirm;
  status: HTMLElement;
  after: () => void;
}

/** Fills `body` with the custody controls; `after` reloads what an action changed. */
export async function loadCustody(
  body: HTMLElement,
  signal: AbortSignal,
  confirmAndAct: Confirm,
  after: () => void,
  /** kept across reloads, so an action's outcome stays on screen after the section is rebuilt */
  status: HTMLElement,
): Promise<void> {
  const [incidents, held, withdrawals] = await Promise.all([
    api<{
      halted: IncidentView | null;
      waiting: WaitingView | null;
      incidents: IncidentView[];
      reconciliation: ReconciliationView | null;
    }>("/api/admin/incidents", { signal }),
    api<{ payouts: HeldPayoutView[] }>("/api/admin/payouts/held", { signal }),
    api<{ configured: boolean; withdrawableLamports: string | null; withdrawals: WithdrawalView[] }>(
      "/api/admin/withdrawals",
      { signal },
    ),
  ]);
  const actions: CustodyActions = { confirmAndAct, status, after };
  const haltBox = haltNotice(incidents.halted, incidents.waiting, actions);
  const reconciliationBox = reconciliationLine(incidents.reconciliation);
  const incidentList = incidentsTable(incidents.incidents);
  const heldList = heldPayoutsTable(held.payouts, actions);
  const withdrawForm = withdrawalForm(withdrawals, actions);
  const withdrawalList = withdrawalsTable(withdrawals.withdrawals);

  body.replaceChildren(
    haltBox,
    ...(reconciliationBox ? [reconciliationBox] : []),
    h("h3", null, "Incidents"),
    incidentList,
    h("h3", null, "Payouts held for review"),
    heldList,
    h("h3", null, "Withdrawals"),
    withdrawForm,
    withdrawalList,
    status,
  );
}

const ids = (rows: readonly WaitingRow[]) => rows.map((r) => r.id);

/** What a resume lets out, in words: the rows listed, by kind, and their total. */
function waitingText(waiting: WaitingView): string {
  const parts = [
    [waiting.payouts.length, "payout"],
    [waiting.withdrawals.length, "withdrawal"],
    [waiting.burnOrders.length, "burn order"],
  ]
    .filter(([n]) => Number(n) > 0)
    .map(([n, what]) => `${n} ${what}${Number(n) === 1 ? "" : "s"}`);
  return parts.length === 0
    ? "Nothing is waiting to leave."
    : `Waiting to leave: ${parts.join(", ")}, ${lamportsToSol(waiting.totalLamports)} SOL in all.`;
}

/** Whether money moves, and while it is halted, the way to resume it. */
function haltNotice(
  halt: IncidentView | null,
  waiting: WaitingView | null,
  { confirmAndAct, status, after }: CustodyActions,
): HTMLElement {
  const listed = waiting ?? { payouts: [], withdrawals: [], burnOrders: [], totalLamports: "0" };
  const resume = h("button", { type: "button", id: "admin-resume" }, "Resume money");
  resume.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: "Resume payouts, burn buys and withdrawals?",
          text: `${waitingText(listed)} Exactly these go out once, even above the outflow caps; everything after them counts against the caps.`,
          confirm: "Resume",
        },
        // The rows shown here, by id: when what waits changed since, the server refuses (nothing
        // changes) and the section reloads to show what waits now beside the refusal.
        (reason) =>
          api("/api/admin/resume", {
            method: "POST",
            body: {
              reason,
              payoutIds: ids(listed.payouts),
              withdrawalIds: ids(listed.withdrawals),
              burnOrderIds: ids(listed.burnOrders),
            },
          }).catch((error: unknown) => {
            after();
            throw error;
          }),
        "Money moves again.",
        after,
      ),
  );
  return halt
    ? h(
        "div",
        { id: "admin-halt" },
        notice(h("span", null, `Money is halted (${halt.kind}) since `, time(halt.at), `: ${halt.detail}`), "warn"),
        h("p", { id: "admin-waiting" }, waitingText(listed)),
        h("p", null, resume),
      )
    : notice("Money moves: no breaker has tripped.", "ok");
}

function incidentsTable(incidents: IncidentView[]): HTMLElement {
  return incidents.length === 0
    ? h("p", { className: "empty" }, "No incidents.")
    : table(
        ["When", "Kind", "What", "Halts", "Resolved"],
        incidents
          .slice(0, 10)
          .map((i) => [
            time(i.at),
            i.kind,
            i.detail,
            i.halts ? "yes" : "warning",
            i.resolvedAt ? h("span", null, time(i.resolvedAt), ` by ${i.resolvedBy}: ${i.resolveReason}`) : "open",
          ]),
        "Custody incidents, newest first",
      );
}

function heldPayoutsTable(payouts: HeldPayoutView[], actions: CustodyActions): HTMLElement {
  return payouts.length === 0
    ? h("p", { className: "empty" }, "No payout waits for review.")
    : table(
        ["Payout", "Amount (SOL)", "To", "Kind", "Since", "Actions"],
        payouts.map((p) => heldPayoutRow(p, actions)),
        "Payouts held above the review amount",
      );
}

function heldPayoutRow(p: HeldPayoutView, { confirmAndAct, status, after }: CustodyActions): (Node | string)[] {
  const approve = h("button", { type: "button", "aria-label": `Approve payout ${p.payoutId}` }, "Approve");
  const refuse = h(
    "button",
    { type: "button", className: "secondary", "aria-label": `Refuse payout ${p.payoutId}` },
    "Refuse",
  );
  approve.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: `Approve payout ${p.payoutId} of ${lamportsToSol(p.lamports)} SOL?`,
          text: "The next payouts run sends it.",
          confirm: "Approve",
        },
        (reason) => api(`/api/admin/payouts/${p.payoutId}/approve`, { method: "POST", body: { reason } }),
        `Payout ${p.payoutId} is approved.`,
        after,
      ),
  );
  refuse.addEventListener(
    "click",
    () =>
      void confirmAndAct(
        status,
        {
          title: `Refuse payout ${p.payoutId}?`,
          text: "It fails and its amount goes back to the account's balance.",
          confirm: "Refuse",
        },
        (reason) => api(`/api/admin/payouts/${p.payoutId}/refuse`, { method: "POST", body: { reason } }),
        `Payout ${p.payoutId} is refused; the amount is back in the balance.`,
        after,
      ),
  );
  return [
    String(p.payoutId),
    lamportsToSol(p.lamports),
    longValue(p.wallet, "wallet address"),
    p.kind,
    time(p.createdAt),
    h("span", { className: "inline" }, approve, refuse),
  ];
}

/** A withdrawal of platform revenue, or why there is none to make on this deployment. */
function withdrawalForm(
  withdrawals: { configured: boolean; withdrawableLamports: string | null },
  { confirmAndAct, status, after }: CustodyActions,
): HTMLElement {
  const amount = h("input", {
    id: "admin-withdraw-amount",
    inputmode: "decimal",
    "aria-describedby": "admin-withdraw-hint",
  });
  const withdraw = h("button", { type: "button", className: "secondary", id: "admin-withdraw" }, "Withdraw");
  withdraw.addEventListener("click", () => {
    const lamports = solToLamports(amount.value);
    if (lamports === null || lamports <= 0n) {
      status.replaceChildren(errorBox(new Error("Enter an amount in SOL with at most nine decimals.")));
      return;
    }
    void confirmAndAct(
      status,
      {
        title: `Withdraw ${lamportsToSol(lamports)} SOL of platform revenue?`,
        text: "It goes to the platform wallet set on this deployment, and nowhere else.",
        confirm: "Withdraw",
      },
      (reason) => api("/api/admin/withdrawals", { method: "POST", body: { lamports: lamports.toString(), reason } }),
      `${lamportsToSol(lamports)} SOL is queued for the platform wallet.`,
      after,
    );
  });
  return withdrawals.configured
    ? h(
        "div",
        { className: "field" },
        h("label", { for: "admin-withdraw-amount" }, "Platform withdrawal (SOL)"),
        h("div", { className: "inline" }, amount, withdraw),
        h(
          "p",
          { className: "muted", id: "admin-withdraw-hint" },
          withdrawals.withdrawableLamports === null
            ? "The treasury cannot be read right now."
            : `At most ${lamportsToSol(withdrawals.withdrawableLamports)} SOL now.`,
        ),
      )
    : h("p", { className: "muted" }, "Withdrawals are off: PLATFORM_WALLET is not set on this deployment.");
}

function withdrawalsTable(withdrawals: WithdrawalView[]): HTMLElement {
  return withdrawals.length === 0
    ? h("p", { className: "empty" }, "No withdrawals yet.")
    : table(
        ["When", "Amount (SOL)", "Status", "By", "Reason"],
        withdrawals
          .slice(0, 10)
          .map((w) => [
            time(w.createdAt),
            lamportsToSol(w.lamports),
            w.error ? `${w.status}: ${w.error}` : w.status,
            w.actor,
            w.reason,
          ]),
        "Platform withdrawals, newest first",
      );
}
