/** Proof of reserves: the treasury's balance on chain against what the ledger says is owed. */
import { api, ApiError } from "../api";
import { h } from "../dom";
import type { Proof } from "../types";
import { copyable, errorBox, explorerAccount, explorerTx, facts, loading, money, time } from "../ui";
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
    liabilitiesSection(signal),
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

interface PublishedLiabilities {
  at: string;
  root: string;
  totalLamports: string;
  leaves: number;
  anchorSignature: string | null;
}

/**
 * The latest published liabilities root: what each signed-in account checks its own balance
 * against, and the treasury-signed transaction that anchors it on chain.
 */
function liabilitiesSection(signal: AbortSignal): HTMLElement {
  const body = h("div", null, loading());
  const section = h(
    "section",
    { id: "liabilities", "aria-labelledby": "liabilities-title" },
    h("h2", { id: "liabilities-title" }, "Proof of liabilities"),
    h(
      "p",
      { className: "muted" },
      "Every balance owed is a leaf of a summed hash tree; its root and total are published and anchored on chain. Signed-in recipients check their own leaf on their account page.",
    ),
    body,
  );
  void (async () => {
    try {
      const p = await api<PublishedLiabilities>("/api/proof/liabilities", { signal });
      if (signal.aborted) return;
      body.replaceChildren(
        facts([
          ["Root", copyable(p.root, "liabilities root")],
          ["Total owed in the tree", money(p.totalLamports, { "data-field": "liabilities-total" })],
          ["Accounts in the tree", String(p.leaves)],
          ["Published", time(p.at)],
          [
            "Anchor transaction",
            p.anchorSignature ? explorerTx(p.anchorSignature) : h("span", { className: "muted" }, "not confirmed yet"),
          ],
        ]),
      );
    } catch (error) {
      if (signal.aborted) return;
      body.replaceChildren(
        error instanceof ApiError && error.status === 404
          ? h("p", { className: "empty" }, "No liabilities snapshot is published yet.")
          : errorBox(error),
      );
    }
  })();
  return section;
}
