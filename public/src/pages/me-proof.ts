/**
 * The signed-in page's proof of liabilities (docs/proof-of-liabilities.md): fetch this account's
 * own inclusion proof, check it here with WebCrypto against the root everyone is shown, and say
 * in words whether the balance is inside the published total. Nothing is taken on trust from the
 * proof answer alone: the root and total are read again from the public route.
 */
import type { InclusionProofJson } from "../../../src/api-types";
import type { SignedInMe } from "../types";
import { api, ApiError } from "../api";
import { h } from "../dom";
import { sol } from "../money";
import { absoluteTime } from "../time";
import { errorBox, explorerTx, loading, notice } from "../ui";

interface PublishedLiabilities {
  at: string;
  root: string;
  totalLamports: string;
  leaves: number;
  anchorSignature: string | null;
}

const U64_MAX = 2n ** 64n - 1n;
const HEX32 = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

function hexBytes(hex: string, what: string): Uint8Array {
  if (!HEX32.test(hex)) throw new Error(`${what} is not 32 bytes of hex`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function amount(text: string, what: string): bigint {
  if (!DECIMAL.test(text)) throw new Error(`${what} is not a whole number of lamports`);
  const value = BigInt(text);
  if (value > U64_MAX) throw new Error(`${what} does not fit in 64 bits`);
  return value;
}

function u64be(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, false);
  return out;
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Folds the leaf and its path into a root and compares it with `root`/`totalLamports`. Returns null
 * when it holds, or the reason it does not.
 */
async function checkInclusion(proof: InclusionProofJson, root: string, totalLamports: string): Promise<string | null> {
  try {
    const lamports = amount(proof.leaf.lamports, "your amount");
    if (lamports === 0n) return "a leaf of 0 lamports is never in the tree";
    let nodeHash = await sha256(Uint8Array.of(0x00), hexBytes(proof.leaf.nonce, "the nonce"), u64be(lamports));
    let nodeSum = lamports;
    if (!Array.isArray(proof.path) || proof.path.length > 64) return "the path is not a list of at most 64 steps";
    for (const step of proof.path) {
      const siblingHash = hexBytes(step.hash, "a path hash");
      const siblingSum = amount(step.sumLamports, "a path sum");
      const sum = nodeSum + siblingSum;
      if (sum > U64_MAX) return "the path adds up to more than 64 bits";
      if (step.side === "left")
        nodeHash = await sha256(Uint8Array.of(0x01), siblingHash, u64be(siblingSum), nodeHash, u64be(nodeSum));
      else if (step.side === "right")
        nodeHash = await sha256(Uint8Array.of(0x01), nodeHash, u64be(nodeSum), siblingHash, u64be(siblingSum));
      else return "a path step has no side";
      nodeSum = sum;
    }
    if (!sameBytes(nodeHash, hexBytes(root, "the root")))
      return "your leaf and its path do not hash to the published root";
    if (nodeSum !== amount(totalLamports, "the total")) return "the root's sum is not the published total";
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function byHand(proof: InclusionProofJson | null): HTMLElement {
  const parts: (Node | string)[] = [
    h("summary", null, "How to check it by hand"),
    h(
      "ol",
      null,
      h("li", null, "Download your proof below (it holds your secret nonce: keep it to yourself)."),
      h(
        "li",
        null,
        "Run the independent verifier from the service's source (a clone, then npm install): ",
        h("code", null, "npm run verify-liabilities -- proof.json"),
        ", or hash it yourself:",
      ),
      h(
        "li",
        { className: "muted" },
        "leaf = SHA-256(0x00 ‖ nonce ‖ lamports as 8 bytes big-endian); then for each step of the path, ",
        "node = SHA-256(0x01 ‖ left hash ‖ left sum ‖ right hash ‖ right sum), the sibling on the side the step names; ",
        "the last node must be the published root, and its sum the published total.",
      ),
      h(
        "li",
        null,
        "Compare the root and total with ",
        h("a", { href: "/api/proof/liabilities" }, "/api/proof/liabilities"),
        " and with the memo of the anchor transaction, signed by the treasury.",
      ),
      h(
        "li",
        null,
        "The full format and a worked example are in docs/proof-of-liabilities.md of the service's source.",
      ),
    ),
  ];
  if (proof) {
    const file = URL.createObjectURL(new Blob([JSON.stringify(proof, null, 2)], { type: "application/json" }));
    parts.push(
      h(
        "p",
        null,
        h(
          "a",
          {
            href: file,
            download: `liabilities-proof-${proof.at.slice(0, 19).replace(/:/g, "")}.json`,
            id: "liability-proof-download",
          },
          "Download your proof (JSON)",
        ),
      ),
    );
  }
  return h("details", { id: "check-by-hand" }, ...parts);
}

const FINAL_PAYOUT = new Set(["confirmed", "failed", "replaced"]);

/** A self-contained block for the signed-in page; it loads and checks on its own. */
export function liabilityProofBlock(me: SignedInMe, signal: AbortSignal): HTMLElement {
  const result = h(
    "div",
    { id: "liability-proof-result", "aria-live": "polite" },
    loading("Checking that your balance is counted…"),
  );
  const hand = h("div");
  const section = h(
    "section",
    { className: "panel stack", id: "liability-proof" },
    h("h2", null, "Is your balance counted?"),
    result,
    hand,
  );
  hand.replaceChildren(byHand(null));
  // Owed nothing now (no balance, no payout on its way): the latest snapshot has no leaf of ours.
  if (me.balanceLamports === "0" && me.payouts.every((p) => FINAL_PAYOUT.has(p.status))) {
    result.replaceChildren(
      notice("You are owed nothing right now, so there is no amount of yours to check in the published total.", "info"),
    );
    return section;
  }
  void (async () => {
    let proof: InclusionProofJson;
    try {
      proof = await api<InclusionProofJson>("/api/me/proof", { signal });
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 404) {
        result.replaceChildren(
          notice(
            "You were owed nothing at the latest published snapshot, so there is nothing of yours to check in it yet.",
            "info",
          ),
        );
      } else {
        result.replaceChildren(errorBox(error));
      }
      return;
    }
    let published: PublishedLiabilities;
    try {
      published = await api<PublishedLiabilities>(`/api/proof/liabilities?at=${encodeURIComponent(proof.at)}`, {
        signal,
      });
    } catch (error) {
      if (!signal.aborted) result.replaceChildren(errorBox(error));
      return;
    }
    if (signal.aborted) return;
    hand.replaceChildren(byHand(proof));
    if (!globalThis.crypto?.subtle) {
      result.replaceChildren(
        notice("This browser cannot hash here (WebCrypto needs https); check it by hand below.", "warn"),
      );
      return;
    }
    const failure =
      published.root !== proof.root || published.totalLamports !== proof.totalLamports
        ? "the root or total given to you is not the one published for everyone"
        : await checkInclusion(proof, published.root, published.totalLamports);
    if (signal.aborted) return;
    if (failure) {
      result.replaceChildren(
        notice(`Not verified: ${failure}. Please tell the operator, and keep your proof file.`, "warn"),
      );
      result.dataset.verified = "false";
      return;
    }
    result.dataset.verified = "true";
    result.replaceChildren(verifiedNotice(proof, published));
  })();
  return section;
}

function verifiedNotice(proof: InclusionProofJson, published: PublishedLiabilities): HTMLElement {
  const anchored = published.anchorSignature
    ? h("span", null, ", anchored in transaction ", explorerTx(published.anchorSignature), " signed by the treasury")
    : h("span", null, "; its anchor transaction is not confirmed yet");
  return notice(
    h(
      "span",
      null,
      "Checked in your browser: your ",
      h("strong", { "data-field": "proof-lamports" }, sol(proof.leaf.lamports)),
      " is inside the published total of ",
      h("strong", { "data-field": "proof-total" }, sol(published.totalLamports)),
      ` owed to ${published.leaves} ${published.leaves === 1 ? "account" : "accounts"} at ${absoluteTime(published.at)}`,
      anchored,
      ".",
    ),
    "ok",
  );
}
