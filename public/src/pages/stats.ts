/** Service-wide figures and the health of the scheduled jobs. */
import { api } from "../api";
import { h } from "../dom";
import { durationSeconds } from "../time";
import type { JobHealth, Stats } from "../types";
import { errorBox, facts, loading, money, table, time } from "../ui";

export async function statsPage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const statsSlot = h("div", null, loading());
  const healthSlot = h("div", null, loading());
  root.append(h("h1", null, "Stats"), statsSlot, h("h2", null, "Job health"), healthSlot);
  await Promise.all([
    api<Stats>("/api/stats", { signal }).then(
      (s) =>
        statsSlot.replaceChildren(
          facts([
            ["Tokens launched", String(s.tokens)],
            ["Launched in the last 24 h", String(s.launches24h)],
            ["Recipients named", String(s.recipients)],
            ["Accounts signed in", String(s.claimedAccounts)],
            ["Fees swept", money(s.sweptLamports, { "data-field": "swept" })],
            ["Paid out (confirmed)", money(s.paidLamports, { "data-field": "paid" })],
            ["Burned (bought and burned)", money(s.burnedLamports, { "data-field": "burned" })],
            [
              "Owed to recipients (incl. payouts on their way and burns not yet bought)",
              money(s.owedLamports, { "data-field": "owed" }),
            ],
            ["Not yet claimed", money(s.unclaimedLamports, { "data-field": "unclaimed" })],
            ["Figures from", time(s.updatedAt)],
          ]),
        ),
      (error) => !signal.aborted && statsSlot.replaceChildren(errorBox(error)),
    ),
    api<JobHealth>("/api/cron/health", { signal }).then(
      (health) =>
        healthSlot.replaceChildren(
          health.ok
            ? h("p", { className: "badge ok", id: "jobs-ok" }, "All jobs healthy")
            : h("p", { className: "badge bad", id: "jobs-ok" }, "Some jobs need attention"),
          table(
            ["Job", "State", "Last clean finish", "Next run", "Runs", "Last error"],
            health.jobs.map((j) => [
              j.job,
              !j.configured
                ? h(
                    "span",
                    {
                      className: "badge",
                      "data-state": "not-configured",
                      title: "Nothing for this job to do on this deployment",
                    },
                    "Not configured",
                  )
                : j.running
                  ? "Running"
                  : j.stale
                    ? h("span", { className: "badge bad" }, "Stale")
                    : h("span", { className: "badge ok" }, "OK"),
              // A job with nothing to do here still runs (and finishes at once): its runs say
              // nothing, so the row says one thing, "Not configured", and no times beside it.
              j.configured ? time(j.lastOkAt) : "–",
              j.configured ? time(j.nextRunAt, "not scheduled here") : "–",
              j.configured ? String(j.runs) : "–",
              (j.configured && j.lastError) || "–",
            ]),
            `Jobs are stale after ${durationSeconds(health.staleAfterSec)} without a clean finish`,
          ),
        ),
      (error) => !signal.aborted && healthSlot.replaceChildren(errorBox(error)),
    ),
  ]);
}
