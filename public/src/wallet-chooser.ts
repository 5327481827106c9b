/**
 * Fill an address field from a browser wallet (the claim form's and autopay's): any Wallet Standard
 * wallet that shares a Solana address fills the field (still editable), the address typed before
 * stays one click away, and with no wallet found the page says where to get one.
 */
import { h } from "./dom";
import { errorBox } from "./ui";
import { addressWallets, onWalletsChanged, WALLET_SITES } from "./wallet";

/** "your Phantom wallet", but "your Fake Wallet" for a name that already says it. */
function walletPhrase(name: string): string {
  return /\bwallet$/i.test(name.trim()) ? name.trim() : `${name.trim()} wallet`;
}

/** "Phantom, Solflare or Backpack", each a link to where it is installed from. */
function walletSiteLinks(): (HTMLElement | string)[] {
  return WALLET_SITES.flatMap(([name, href], i) => [
    i === 0 ? "" : i === WALLET_SITES.length - 1 ? " or " : ", ",
    h("a", { href, target: "_blank", rel: "noopener noreferrer" }, name),
  ]);
}

/**
 * The wallet buttons for `input`; `idPrefix` names its elements (`claim`: `claim-wallets`,
 * `claim-wallet-connected`, `claim-typed-address`, `claim-no-wallet`), so two fields can have one each.
 */
export function walletChooser(
  input: HTMLInputElement,
  status: HTMLElement,
  signal: AbortSignal,
  idPrefix: string,
): HTMLElement {
  const slot = h("div", { id: `${idPrefix}-wallets`, className: "stack" });
  let typed: string | null = null;
  let using: string | null = null;
  const useTyped = () => {
    input.value = typed ?? "";
    using = null;
    typed = null;
    paint();
    input.focus();
  };
  const use = async (w: ReturnType<typeof addressWallets>[number]) => {
    try {
      const address = await w.connect();
      if (!using) typed = input.value.trim();
      input.value = address;
      using = w.name;
      status.replaceChildren();
      paint();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  const paint = () => {
    const found = addressWallets();
    const back =
      using && typed !== null
        ? h(
            "button",
            { type: "button", className: "secondary", id: `${idPrefix}-typed-address`, onclick: useTyped },
            "Use the address I typed",
          )
        : null;
    const buttons = found.map((w) =>
      h(
        "button",
        { type: "button", className: "secondary wallet-choice", onclick: () => void use(w) },
        w.icon ? h("img", { src: w.icon, alt: "", width: 20, height: 20 }) : null,
        `Use ${w.name}`,
      ),
    );
    slot.replaceChildren(
      using
        ? h(
            "p",
            { id: `${idPrefix}-wallet-connected`, className: "muted" },
            `Filled in from your ${walletPhrase(using)}.`,
          )
        : found.length
          ? h("p", { className: "muted" }, "Or fill it in from a wallet in this browser:")
          : h(
              "p",
              { className: "muted small", id: `${idPrefix}-no-wallet` },
              "No Solana wallet found in this browser. With ",
              ...walletSiteLinks(),
              " installed (or in the wallet's own browser on a phone), it can fill this in.",
            ),
      buttons.length || back ? h("div", { className: "row wrap" }, buttons, back) : "",
    );
  };
  const off = onWalletsChanged(paint);
  signal.addEventListener("abort", off, { once: true });
  // A wallet's address typed over by hand is the typed address again.
  input.addEventListener("input", () => {
    if (!using) return;
    using = null;
    typed = null;
    paint();
  });
  paint();
  return slot;
}
