/** Proof of reserves: the treasury's balance on chain against what the ledger says is owed. */
import { api, ApiError } from "../api";
import { h } from "../dom";
import type { Proof } from "../types";
import { errorBox, explorerAccount, facts, loading, money, time } from "../ui";
import { solvencyChart } from "../charts";

export async function proofPage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const slot = h("div", null, loading());
  root.append(
    h("h1", null, "Proof of reserves"),
    h(
      "p",
      { className: "muted" },
      "The treasury's balance, read from the chain, against everything credited to recipients and not yet paid out or burned.",
    ),
    slot,
    solvencyChart(signal),
  );
  try {
    const p = await api<Proof>("/api/proof", { signal });
    if (signal.aborted) return;
    slot.replaceChildren(
      h(
        "p",
        { className: `verdict ${p.solvent ? "ok" : "bad"}`, id: "verdict", role: "status" },
        p.solvent
          ? "Solvent: the treasury holds at least what is owed."
          : "Not solvent: the treasury holds less than what is owed.",
      ),
      facts([
        ["Treasury", explorerAccount(p.treasury)],
        ["Treasury balance", money(p.treasuryLamports, { "data-field": "treasury" })],
        ["Owed to recipients", money(p.owedLamports, { "data-field": "owed" })],
        [p.solvent ? "Surplus" : "Shortfall", money(p.surplusLamports.replace(/^-/, ""), { "data-field": "surplus" })],
        ["Checked", time(p.checkedAt)],
      ]),
    );
  } catch (error) {
    if (signal.aborted) return;
    slot.replaceChildren(
      errorBox(
        error instanceof ApiError && error.status === 503
          ? new Error("The treasury balance cannot be read from the chain right now; try again in a minute.")
          : error,
      ),
    );
  }
}
