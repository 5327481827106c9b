/**
 * Launch a token: the form, a wallet (Wallet Standard, or the built-in local wallet on the local
 * chain), then intent -> message signature -> metadata upload -> wallet signs the transaction ->
 * send through /api/rpc -> poll confirm, each step shown as it happens.
 */
import bs58 from "bs58";
import type { DraftInput } from "../../../src/api-types";
import { ApiError, api, apiRaw, describeError } from "../api";
import { h } from "../dom";
import { bpsToPercent, lamportsToSol, percentToBps, sol, solToLamports } from "../money";
import { navigate } from "../router";
import { ChainRefused, LOCAL_CHAIN_GENESIS, rpc } from "../rpc";
import { firstSignature, fromBase64, parseTransaction, toBase64 } from "../txwire";
import type { LaunchConfig, Me } from "../types";
import { errorBox, loading, notice } from "../ui";
import {
  discoverWallets,
  LocalKey,
  localWallet,
  onWalletsChanged,
  standardWallets,
  WALLET_SITES,
  type LaunchWallet,
} from "../wallet";

const HANDLE = /^@?[A-Za-z0-9_]{1,15}$/;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const THUMBNAIL_PX = 256;
/** Local wallet top-up (10 SOL in lamports): a JSON number, as JSON-RPC's requestAirdrop takes it. */
const LOCAL_AIRDROP = 10_000_000_000;
const CONFIRM_POLL_MS = 1500;
const CONFIRM_TIMEOUT_MS = 120_000;

/** The draft as `POST /api/launch/intent` takes it: the server's own schema type. */
export type Draft = DraftInput;

const STEPS = [
  ["wallet", "Connect a wallet"],
  ["intent", "Prepare the launch"],
  ["message", "Sign the launch message"],
  ["metadata", "Upload image and metadata"],
  ["transaction", "Sign and send the transaction"],
  ["confirm", "Wait for confirmation"],
  ["buy", "Make the first buy"],
] as const;
type Step = (typeof STEPS)[number][0];

export async function launchPage(
  root: HTMLElement,
  _params: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  root.append(h("h1", null, "Launch a token"), loading());
  let config: LaunchConfig;
  let localChain = false;
  try {
    const [cfg, local] = await Promise.all([api<LaunchConfig>("/api/launch/config", { signal }), isLocalChain()]);
    config = cfg;
    localChain = local;
  } catch (error) {
    if (signal.aborted) return;
    root.replaceChildren(h("h1", null, "Launch a token"), errorBox(error));
    return;
  }
  if (signal.aborted) return;
  discoverWallets();

  const form = launchForm(config);
  const steps = h(
    "ol",
    { className: "steps", id: "launch-steps", "aria-label": "Launch progress" },
    // The first-buy step shows once a launch with a first buy starts.
    STEPS.map(([key, label]) => h("li", { "data-step": key, "data-state": "todo", hidden: key === "buy" }, label)),
  );
  const status = h("div", { id: "launch-status", "aria-live": "polite" });
  const wallets = walletPicker(localChain, steps, status, signal);

  const submit = h(
    "button",
    { type: "submit", form: "launch-form", id: "launch-submit", disabled: !config.launchesOpen },
    "Launch",
  );
  root.replaceChildren(
    h("h1", null, "Launch a token"),
    config.launchesOpen ? "" : notice("Launches are paused right now. Try again later.", "warn"),
    h(
      "p",
      { className: "muted" },
      `The fees the launch program pays its creator (${bpsToPercent(config.creatorFeeBps)} of trading volume) are split: the platform keeps ${bpsToPercent(config.platformBps)}, the recipients you name share the rest.`,
    ),
    form.element,
    wallets.element,
    h("div", { className: "row launch-actions" }, submit),
    steps,
    status,
  );

  const launch = new LaunchRun(form.element, submit, steps, status, signal, config.launchesOpen);
  form.element.addEventListener("submit", async (event) => {
    event.preventDefault();
    // One launch per intent: while one runs, once its create was sent, or once the token exists,
    // another click must not prepare a second intent (a second token with the same name).
    if (launch.busy || launch.launched) return;
    if (launch.sent) {
      await launch.run(null);
      return;
    }
    form.clearErrors();
    const draft = form.read();
    if ("error" in draft) {
      // The sentence goes next to the field it is about, and the keyboard goes there too.
      form.showError(draft);
      status.replaceChildren();
      return;
    }
    const wallet = wallets.current();
    if (!wallet) {
      status.replaceChildren(errorBox(new Error("Connect a wallet first.")));
      wallets.element.querySelector("button")?.focus();
      return;
    }
    await launch.run({ draft: draft.draft, image: draft.image, wallet, localChain, steps, signal });
  });
}

/** The launch transaction failed on chain: the mint was not made, so a new launch is safe. */
class FailedOnChain extends Error {}

/** A create handed to the chain for an intent, and what is needed to see the launch through. */
interface SentLaunch {
  intentId: string;
  signature: string;
  /** the first buy, signed, sent once the create is confirmed */
  buys: Uint8Array[];
}

/**
 * One launch from the form: the form is locked from the click until the launch fails before its
 * create reached the chain, and for good once the token exists (then the page goes to it). A
 * create whose outcome is unknown (a confirmation that timed out, a lost answer) is checked again
 * by the next click, under the same intent, instead of preparing another.
 */
class LaunchRun {
  busy = false;
  sent: SentLaunch | null = null;
  private mint: string | null = null;
  /** enables what the first click disabled; kept while a sent create's outcome is unknown */
  private unlock: (() => void) | null = null;
  private readonly label: string;

  get launched(): boolean {
    return this.mint !== null;
  }

  constructor(
    private readonly form: HTMLFormElement,
    private readonly submit: HTMLButtonElement,
    private readonly steps: HTMLElement,
    private readonly status: HTMLElement,
    private readonly signal: AbortSignal,
    private readonly open: boolean,
  ) {
    this.label = submit.textContent ?? "Launch";
  }

  /** Starts a launch from `args`, or (null) checks again the one whose create was sent. */
  async run(args: Omit<RunArgs, "onSent"> | null): Promise<void> {
    this.busy = true;
    this.unlock ??= lockForm(this.form, this.submit);
    this.submit.disabled = true;
    // What the form said before (a missing wallet, a failed step) is no longer true once the launch starts.
    this.status.replaceChildren();
    try {
      if (args) {
        resetSteps(this.steps, args.draft.firstBuyLamports !== "0");
        this.sent = await sendLaunch({ ...args, onSent: (sent) => (this.sent = sent) });
      }
      const sent = this.sent!;
      this.mint = await confirmLaunch(sent, this.steps, this.signal);
      await firstBuys(sent.buys, this.steps);
      navigate(`/token/${encodeURIComponent(this.mint)}`);
    } catch (error) {
      if (this.signal.aborted) return;
      if (error instanceof FailedOnChain) this.sent = null;
      const failed = this.steps.querySelector<HTMLElement>('[data-state="active"]');
      if (failed) failed.dataset.state = "failed";
      this.status.replaceChildren(errorBox(error), this.mint ? launchedLink(this.mint) : "");
    } finally {
      this.busy = false;
      this.settle();
    }
  }

  private settle(): void {
    if (this.mint) return; // the token exists: this form has done its launch
    if (this.sent) {
      // The fields stay as sent; the button asks the service about that launch again.
      this.submit.textContent = "Check the launch again";
      this.submit.disabled = false;
      return;
    }
    this.unlock?.();
    this.unlock = null;
    this.submit.textContent = this.label;
    this.submit.disabled = !this.open;
  }
}

/** Disables every enabled control of the form and its button; the returned function enables those again. */
function lockForm(form: HTMLFormElement, submit: HTMLButtonElement): () => void {
  const locked = [...Array.from(form.elements), submit].filter(
    (el): el is HTMLInputElement | HTMLButtonElement => "disabled" in el && !el.disabled,
  );
  for (const el of locked) el.disabled = true;
  form.setAttribute("aria-busy", "true");
  return () => {
    for (const el of locked) el.disabled = false;
    form.removeAttribute("aria-busy");
  };
}

function resetSteps(steps: HTMLElement, firstBuy: boolean): void {
  for (const [key] of STEPS) if (key !== "wallet") setStep(steps, key, "todo", "");
  steps.querySelector<HTMLElement>('[data-step="buy"]')!.hidden = !firstBuy;
}

function launchedLink(mint: string): HTMLElement {
  return notice(
    h(
      "span",
      null,
      "The token is launched. ",
      h("a", { href: `/token/${encodeURIComponent(mint)}`, id: "launched-link" }, "Open the token page"),
    ),
    "ok",
  );
}

/** The wallets this browser offers (and the local wallet on the local chain), repainted as they come and go. */
function walletPicker(
  localChain: boolean,
  steps: HTMLElement,
  status: HTMLElement,
  signal: AbortSignal,
): { element: HTMLElement; current(): LaunchWallet | null } {
  const element = h("div", { className: "wallets", id: "wallets" });
  let wallet: LaunchWallet | null = null;
  const choose = async (connect: () => Promise<LaunchWallet>) => {
    try {
      wallet = await connect();
      setStep(steps, "wallet", "done");
      // "Connect a wallet first." (or a failed connection) is answered now.
      status.replaceChildren();
      paint();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  const paint = () => {
    const choices = standardWallets().map((w) =>
      h(
        "button",
        { type: "button", className: "secondary wallet-choice", onclick: () => void choose(w.connect) },
        w.icon ? h("img", { src: w.icon, alt: "", width: 20, height: 20 }) : null,
        ` ${w.name}`,
      ),
    );
    if (localChain) {
      choices.push(
        h(
          "button",
          {
            type: "button",
            className: "secondary wallet-choice",
            id: "use-local-wallet",
            onclick: () => void choose(localWallet),
          },
          "Local wallet (local chain)",
        ),
      );
    }
    element.replaceChildren(
      h("h2", null, "Wallet"),
      wallet
        ? h(
            "p",
            { id: "wallet-connected" },
            `Connected: ${wallet.name} `,
            h("code", { className: "mono break" }, wallet.address),
          )
        : h("p", { className: "muted" }, "The wallet pays for the launch and signs it."),
      choices.length ? h("div", { className: "row wrap" }, choices) : noWalletHint(),
      localChain && choices.length === 1
        ? h(
            "p",
            { className: "muted small" },
            "No browser wallet found; the local wallet works on this local chain only.",
          )
        : "",
    );
  };
  const unsubscribe = onWalletsChanged(paint);
  signal.addEventListener("abort", unsubscribe);
  paint();
  return { element, current: () => wallet };
}

/** No browser wallet here: where to get one, and that the page finds it after a reload. */
function noWalletHint(): HTMLElement {
  return h(
    "div",
    { className: "notice warn", role: "status", id: "no-wallet" },
    h("p", null, "No Solana wallet found in this browser. A launch needs one to pay for it and sign it."),
    h(
      "p",
      null,
      "Install one of ",
      WALLET_SITES.flatMap(([name, href], i) => [
        i === 0 ? "" : i === WALLET_SITES.length - 1 ? " or " : ", ",
        h("a", { href, target: "_blank", rel: "noopener noreferrer" }, name),
      ]),
      " (a browser extension, or the wallet's own in-app browser on a phone), then reload this page.",
    ),
  );
}

/**
 * DESIGN §5: dev login exists only on the local chain, so it answers without a chain call; the
 * local chain's genesis hash is the fallback witness when dev login is switched off there.
 */
async function isLocalChain(): Promise<boolean> {
  try {
    if ((await api<Me>("/api/me")).devLogin) return true;
    return (await rpc<string>("getGenesisHash")) === LOCAL_CHAIN_GENESIS;
  } catch {
    return false;
  }
}

function setStep(steps: HTMLElement, key: Step, state: "todo" | "active" | "done" | "failed", detail?: string): void {
  const li = steps.querySelector<HTMLElement>(`[data-step="${key}"]`);
  if (!li) return;
  li.dataset.state = state;
  if (state === "active") li.setAttribute("aria-current", "step");
  else li.removeAttribute("aria-current");
  let extra = li.querySelector<HTMLElement>(".detail");
  if (detail) {
    if (!extra) {
      extra = h("span", { className: "detail muted" });
      li.append(extra);
    }
    extra.textContent = ` ${detail}`;
  } else if (detail === "") {
    // "approve it in your wallet" or "waiting 3 s" must not stay on a finished step.
    extra?.remove();
  }
}

interface RunArgs {
  draft: Draft;
  image: File;
  wallet: LaunchWallet;
  localChain: boolean;
  steps: HTMLElement;
  signal: AbortSignal;
  /** told before the create goes out: from then on its outcome decides, not a new intent */
  onSent(sent: SentLaunch): void;
}

/** Intent, message, metadata, signatures, then the create handed to the chain. */
async function sendLaunch({ draft, image, wallet, localChain, steps, signal, onSent }: RunArgs): Promise<SentLaunch> {
  const imageBytes = new Uint8Array(await image.arrayBuffer());
  const digest = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", imageBytes as BufferSource)));
  // The mint is a fresh key made here; the service never sees its private half.
  const { key: mintKey } = await LocalKey.generate();

  if (localChain && wallet.id === "local")
    await fundLocalWallet(wallet.address, BigInt(draft.firstBuyLamports ?? "0"), steps);

  setStep(steps, "intent", "active");
  const intent = await api<Record<string, unknown>>("/api/launch/intent", {
    body: { draft, wallet: wallet.address, mint: mintKey.address, digest },
    signal,
  });
  const intentId = typeof intent.intent === "string" ? intent.intent : "";
  const message = typeof intent.message === "string" ? intent.message : null;
  if (!intentId || !message) throw new Error("The service's launch answer is missing its intent or message.");
  setStep(steps, "intent", "done");

  setStep(steps, "message", "active", "approve it in your wallet");
  const messageSignature = await wallet.signMessage(new TextEncoder().encode(message));
  setStep(steps, "message", "done", "");

  setStep(steps, "metadata", "active");
  const form = new FormData();
  form.set("intent", intentId);
  form.set("signature", bs58.encode(messageSignature));
  form.set("image", image, image.name || "image");
  form.set("thumbnail", await thumbnail(image), "thumbnail.webp");
  const metadata = await api<Record<string, unknown>>("/api/launch/metadata", { form, signal });
  setStep(steps, "metadata", "done");

  setStep(steps, "transaction", "active", "approve it in your wallet");
  const texts = Array.isArray(metadata.transactions)
    ? metadata.transactions.filter((t): t is string => typeof t === "string")
    : [];
  if (texts.length === 0) throw new Error("The service did not return a transaction to sign.");
  // The wallet signs first: some wallets refuse or re-sign transactions that already carry signatures.
  const walletSigned = await wallet.signTransactions(texts.map(fromBase64));
  const signed = await Promise.all(
    walletSigned.map((wire) =>
      parseTransaction(wire).signers.includes(mintKey.address) ? mintKey.signTransaction(wire) : wire,
    ),
  );
  const [create, ...buys] = signed;
  // A transaction's id is its first signature, known before it is sent: an answer lost on the way
  // back leaves a create that may still land, which only its own confirmation can tell.
  const sent = { intentId, signature: firstSignature(create!), buys };
  onSent(sent);
  try {
    await send(create!);
  } catch (error) {
    // Refused before it reached the chain (the node's preflight, the proxy's checks): nothing can land.
    if (error instanceof ChainRefused || (error instanceof ApiError && error.status >= 400 && error.status < 500))
      throw new FailedOnChain(describeError(error));
    throw error;
  }
  setStep(steps, "transaction", "done", "");
  return sent;
}

/** Waits for the service to record the launch (the create confirmed); the token's mint. */
async function confirmLaunch(sent: SentLaunch, steps: HTMLElement, signal: AbortSignal): Promise<string> {
  setStep(steps, "confirm", "active");
  let mint: string;
  try {
    mint = await pollConfirm(sent.intentId, sent.signature, steps, signal);
  } catch (error) {
    // 410: the window and its landing grace passed without the create landing.
    if (error instanceof ApiError && error.status === 410) throw new FailedOnChain(describeError(error));
    throw error;
  }
  // Checked again after an unknown outcome, the create is now known to have landed.
  setStep(steps, "transaction", "done", "");
  setStep(steps, "confirm", "done", "");
  return mint;
}

/** The first buy is its own transaction after the create; a failed buy does not undo the launch. */
async function firstBuys(buys: Uint8Array[], steps: HTMLElement): Promise<void> {
  for (const wire of buys) {
    setStep(steps, "buy", "active");
    const signature = await send(wire);
    const err = await waitForSignature(signature);
    if (err) throw new Error(`The token launched, but the first buy failed on chain (${err}).`);
    setStep(steps, "buy", "done", "");
  }
}

async function send(wire: Uint8Array): Promise<string> {
  const sent = await rpc<string>("sendTransaction", [
    toBase64(wire),
    { encoding: "base64", preflightCommitment: "confirmed" },
  ]);
  return typeof sent === "string" && sent ? sent : firstSignature(wire);
}

/** null once confirmed, or the chain's error text; throws when it never shows up. */
async function waitForSignature(signature: string): Promise<string | null> {
  for (let i = 0; i < 120; i++) {
    const statuses = await rpc<{ value: ({ confirmationStatus?: string; err?: unknown } | null)[] }>(
      "getSignatureStatuses",
      [[signature]],
    );
    const s = statuses.value[0];
    if (s?.err) return JSON.stringify(s.err);
    if (s && (s.confirmationStatus === "confirmed" || s.confirmationStatus === "finalized")) return null;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("The transaction did not confirm within a minute.");
}

async function pollConfirm(
  intentId: string,
  signature: string,
  steps: HTMLElement,
  signal: AbortSignal,
): Promise<string> {
  const started = Date.now();
  for (;;) {
    const { status, body } = await apiRaw<{ status?: string; error?: string; token?: { mint?: string } }>(
      "/api/launch/confirm",
      {
        body: { intent: intentId, signature },
        signal,
      },
    );
    if (status === 200 && body?.status === "failed")
      throw new FailedOnChain(`The launch transaction failed on chain: ${body.error ?? "no reason given"}.`);
    if (status === 200 && body?.token?.mint) return body.token.mint;
    if (Date.now() - started > CONFIRM_TIMEOUT_MS) {
      throw new Error(
        "The launch is still not confirmed after two minutes. It may still land; check the ledger shortly.",
      );
    }
    setStep(steps, "confirm", "active", `waiting ${Math.round((Date.now() - started) / 1000)} s`);
    await new Promise((r) => setTimeout(r, CONFIRM_POLL_MS));
  }
}

/** The local chain hands out SOL freely; top the local wallet up when it is short. */
async function fundLocalWallet(address: string, firstBuy: bigint, steps: HTMLElement): Promise<void> {
  const balance = await rpc<{ value: number | string }>("getBalance", [address, { commitment: "confirmed" }]);
  const have = BigInt(String(balance.value));
  if (have >= firstBuy + 1_000_000_000n) return;
  setStep(steps, "wallet", "active", "funding the local wallet");
  let airdrop: string;
  try {
    airdrop = await rpc<string>("requestAirdrop", [address, LOCAL_AIRDROP]);
  } catch (error) {
    throw new Error(`The local wallet could not be funded on the local chain: ${describeError(error)}`);
  }
  const err = await waitForSignature(airdrop);
  if (err) throw new Error(`The local wallet could not be funded on the local chain (${err}).`);
  setStep(steps, "wallet", "done", "funded");
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The small preview the service stores; made here so the service never decodes a full image twice. */
async function thumbnail(image: File): Promise<Blob> {
  const bitmap = await createImageBitmap(image);
  const scale = Math.min(1, THUMBNAIL_PX / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext("2d")!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("The thumbnail could not be made."))), "image/webp", 0.85),
  );
}

/** What to fix, and the field it is about. */
interface FieldError {
  error: string;
  field: HTMLElement;
}

interface LaunchForm {
  element: HTMLFormElement;
  /** the draft and image, or a sentence saying what to fix and where */
  read(): { draft: Draft; image: File } | FieldError;
  showError(error: FieldError): void;
  clearErrors(): void;
}

/** The form's own inputs; the recipients have their editor. */
interface FormInputs {
  name: HTMLInputElement;
  symbol: HTMLInputElement;
  description: HTMLTextAreaElement;
  website: HTMLInputElement;
  twitter: HTMLInputElement;
  telegram: HTMLInputElement;
  image: HTMLInputElement;
  preview: HTMLImageElement;
  firstBuy: HTMLInputElement;
}

/** The recipient rows, their running total and the button that adds one. */
interface RecipientsEditor {
  list: HTMLElement;
  total: HTMLElement;
  addButton: HTMLButtonElement;
  rows(): HTMLElement[];
}

const fail = (field: HTMLElement, error: string): FieldError => ({ field, error });

function launchForm(config: LaunchConfig): LaunchForm {
  const inputs = formInputs();
  showImagePreview(inputs.image, inputs.preview);
  const recipients = recipientsEditor(config);
  const element = formElement(config, inputs, recipients);
  return {
    element,
    showError: showFieldError,
    clearErrors: () => clearFieldErrors(element),
    read: () => readForm(config, inputs, recipients),
  };
}

function formInputs(): FormInputs {
  return {
    name: h("input", { id: "launch-name", name: "name", required: true, maxlength: 32, autocomplete: "off" }),
    symbol: h("input", {
      id: "launch-symbol",
      name: "symbol",
      required: true,
      maxlength: 13,
      autocomplete: "off",
    }),
    description: h("textarea", { id: "launch-description", name: "description", rows: 3, maxlength: 1000 }),
    website: h("input", {
      id: "launch-website",
      name: "website",
      type: "url",
      placeholder: "https://",
      inputmode: "url",
    }),
    twitter: h("input", {
      id: "launch-twitter",
      name: "twitter",
      type: "url",
      placeholder: "https://x.com/…",
      inputmode: "url",
    }),
    telegram: h("input", {
      id: "launch-telegram",
      name: "telegram",
      type: "url",
      placeholder: "https://t.me/…",
      inputmode: "url",
    }),
    image: h("input", {
      id: "launch-image",
      name: "image",
      type: "file",
      accept: IMAGE_TYPES.join(","),
      required: true,
    }),
    preview: h("img", { className: "preview", alt: "", hidden: true, width: 96, height: 96 }),
    firstBuy: h("input", {
      id: "launch-first-buy",
      name: "firstBuy",
      inputmode: "decimal",
      value: "0",
      autocomplete: "off",
    }),
  };
}

function showImagePreview(image: HTMLInputElement, preview: HTMLImageElement): void {
  let previewUrl: string | null = null;
  image.addEventListener("change", () => {
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    const file = image.files?.[0];
    previewUrl = file ? URL.createObjectURL(file) : null;
    preview.hidden = !previewUrl;
    if (previewUrl) preview.src = previewUrl;
  });
}

function recipientsEditor(config: LaunchConfig): RecipientsEditor {
  const list = h("div", { id: "recipients", className: "stack" });
  const total = h("p", { id: "recipients-total", "aria-live": "polite" });
  const addButton = h("button", { type: "button", className: "secondary", id: "add-recipient" }, "Add recipient");
  const rows = () => Array.from(list.querySelectorAll<HTMLElement>(".recipient-row"));
  const updateTotal = () => {
    let sum = 0;
    let valid = true;
    for (const row of rows()) {
      const bps = percentToBps(row.querySelector<HTMLInputElement>("input[data-share]")!.value);
      if (bps === null) valid = false;
      else sum += bps;
    }
    total.textContent = valid
      ? `Total: ${bpsToPercent(sum)}${sum === 10_000 ? "" : " (must be 100%)"}`
      : "Total: a share is not a valid percentage";
    total.className = valid && sum === 10_000 ? "ok" : "bad";
    addButton.disabled = rows().length >= config.maxRecipients;
  };
  let rowCount = 0;
  const addRow = (handle = "", share = "") => {
    const row = recipientRow(++rowCount, handle, share, () => {
      row.remove();
      updateTotal();
      addButton.focus();
    });
    row.querySelector("input[data-share]")!.addEventListener("input", updateTotal);
    list.append(row);
    updateTotal();
  };
  addButton.addEventListener("click", () => {
    addRow();
    rows().at(-1)?.querySelector("input")?.focus();
  });
  addRow("", "100");
  return { list, total, addButton, rows };
}

function recipientRow(n: number, handle: string, share: string, onRemove: () => void): HTMLElement {
  const handleInput = h("input", {
    id: `recipient-handle-${n}`,
    "data-handle": "",
    placeholder: "@handle",
    autocomplete: "off",
    value: handle,
    maxlength: 16,
  });
  const shareInput = h("input", {
    id: `recipient-share-${n}`,
    "data-share": "",
    inputmode: "decimal",
    placeholder: "50",
    value: share,
    size: 6,
  });
  return h(
    "div",
    { className: "recipient-row row" },
    h("label", { for: `recipient-handle-${n}`, className: "visually-hidden" }, `Recipient ${n} handle`),
    handleInput,
    h("label", { for: `recipient-share-${n}`, className: "visually-hidden" }, `Recipient ${n} share in percent`),
    shareInput,
    h("span", { "aria-hidden": "true" }, "%"),
    h(
      "button",
      { type: "button", className: "secondary", "aria-label": `Remove recipient ${n}`, onclick: onRemove },
      "Remove",
    ),
  );
}

function formElement(config: LaunchConfig, inputs: FormInputs, recipients: RecipientsEditor): HTMLFormElement {
  const field = (id: string, label: string, input: HTMLElement, help?: string) =>
    h(
      "div",
      { className: "field" },
      h("label", { for: id }, label),
      input,
      help ? h("p", { className: "muted", id: `${id}-help` }, help) : null,
    );
  return h(
    "form",
    { id: "launch-form", className: "stack panel", novalidate: true },
    field("launch-name", "Name", inputs.name, "Up to 32 characters."),
    field("launch-symbol", "Ticker", inputs.symbol, "Up to 13 characters."),
    field("launch-description", "Description", inputs.description),
    field(
      "launch-image",
      "Image",
      h("div", { className: "row" }, inputs.image, inputs.preview),
      `PNG, JPEG, GIF or WebP, up to ${Math.floor((config.maxImageBytes / 1024 / 1024) * 10) / 10} MB.`,
    ),
    h(
      "fieldset",
      null,
      h("legend", null, "Links (optional, https only)"),
      field("launch-website", "Website", inputs.website),
      field("launch-twitter", "X", inputs.twitter),
      field("launch-telegram", "Telegram", inputs.telegram),
    ),
    h(
      "fieldset",
      null,
      h("legend", null, `Recipients (up to ${config.maxRecipients}); shares must total 100%`),
      recipients.list,
      h("div", { className: "row" }, recipients.addButton, recipients.total),
      config.handlesPinnedAtLaunch
        ? ""
        : h(
            "p",
            { className: "muted", id: "recipients-pinning" },
            "Each handle is pinned to its X account when its owner first signs in.",
          ),
    ),
    field(
      "launch-first-buy",
      "First buy in SOL",
      inputs.firstBuy,
      `Optional: bought by your wallet in the launch transaction; at most ${sol(config.maxFirstBuyLamports)}.`,
    ),
  );
}

function showFieldError({ field, error }: FieldError): void {
  const id = `${field.id || "launch-form"}-error`;
  const message = h("p", { className: "field-error", id, role: "alert" }, error);
  // Under the field's own block (a recipient row, a field with its help), not at the bottom.
  const block = field.closest(".recipient-row") ?? field.closest(".field") ?? field.parentElement!;
  block.after(message);
  field.setAttribute("aria-invalid", "true");
  field.setAttribute("aria-describedby", [field.getAttribute("aria-describedby"), id].filter(Boolean).join(" "));
  field.focus();
}

function clearFieldErrors(element: HTMLFormElement): void {
  for (const message of Array.from(element.querySelectorAll(".field-error"))) message.remove();
  for (const field of Array.from(element.querySelectorAll<HTMLElement>("[aria-invalid]"))) {
    field.removeAttribute("aria-invalid");
    const rest = (field.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && !x.endsWith("-error"));
    if (rest.length) field.setAttribute("aria-describedby", rest.join(" "));
    else field.removeAttribute("aria-describedby");
  }
}

/** Checks the fields in the order they are shown, so the first sentence is about the topmost mistake. */
function readForm(
  config: LaunchConfig,
  inputs: FormInputs,
  recipients: RecipientsEditor,
): { draft: Draft; image: File } | FieldError {
  const nameText = inputs.name.value.trim();
  const symbolText = inputs.symbol.value.trim();
  if (!nameText || nameText.length > 32) return fail(inputs.name, "Give the token a name of 1 to 32 characters.");
  if (!symbolText || symbolText.length > 13)
    return fail(inputs.symbol, "Give the token a ticker of 1 to 13 characters.");
  if (/\s/.test(symbolText)) return fail(inputs.symbol, "The ticker must not contain spaces.");
  if (symbolText.startsWith("$"))
    return fail(inputs.symbol, "Type the ticker without the $: the page adds it where the ticker is shown.");
  const links = readLinks(inputs);
  if ("error" in links) return links;
  const file = readImage(config, inputs.image);
  if ("error" in file) return file;
  const list = readRecipients(config, recipients);
  if ("error" in list) return list;
  const buy = inputs.firstBuy.value.trim() ? solToLamports(inputs.firstBuy.value) : 0n;
  if (buy === null) return fail(inputs.firstBuy, "The first buy must be an amount in SOL with at most nine decimals.");
  if (buy > BigInt(config.maxFirstBuyLamports))
    return fail(inputs.firstBuy, `The first buy can be at most ${lamportsToSol(config.maxFirstBuyLamports)} SOL.`);
  return {
    draft: {
      name: nameText,
      symbol: symbolText,
      description: inputs.description.value.trim(),
      website: links.website ?? null,
      twitter: links.twitter ?? null,
      telegram: links.telegram ?? null,
      recipients: list,
      firstBuyLamports: buy.toString(),
    },
    image: file,
  };
}

type Links = Partial<Record<"website" | "twitter" | "telegram", string | null>>;

function readLinks(inputs: FormInputs): Links | FieldError {
  const links: Links = {};
  for (const [key, input, label] of [
    ["website", inputs.website, "website"],
    ["twitter", inputs.twitter, "X link"],
    ["telegram", inputs.telegram, "Telegram link"],
  ] as const) {
    const value = input.value.trim();
    if (!value) links[key] = null;
    else {
      try {
        if (new URL(value).protocol !== "https:") return fail(input, `The ${label} must start with https://.`);
      } catch {
        return fail(input, `The ${label} is not a valid address.`);
      }
      links[key] = value;
    }
  }
  return links;
}

function readImage(config: LaunchConfig, image: HTMLInputElement): File | FieldError {
  const file = image.files?.[0];
  if (!file) return fail(image, "Choose an image.");
  if (!IMAGE_TYPES.includes(file.type)) return fail(image, "The image must be PNG, JPEG, GIF or WebP.");
  if (file.size > config.maxImageBytes)
    return fail(image, `The image is larger than ${Math.floor(config.maxImageBytes / 1024)} kB.`);
  return file;
}

function readRecipients(
  config: LaunchConfig,
  recipients: RecipientsEditor,
): { handle: string; bps: number }[] | FieldError {
  const list: { handle: string; bps: number }[] = [];
  const rows = recipients.rows();
  for (const row of rows) {
    const handleInput = row.querySelector<HTMLInputElement>("input[data-handle]")!;
    const shareInput = row.querySelector<HTMLInputElement>("input[data-share]")!;
    const handle = handleInput.value.trim();
    if (!HANDLE.test(handle))
      return fail(handleInput, `“${handle || "(empty)"}” is not an X handle (1 to 15 letters, digits or underscores).`);
    const bps = percentToBps(shareInput.value);
    if (bps === null || bps === 0)
      return fail(shareInput, `Give @${handle.replace(/^@/, "")} a share above 0% with at most two decimals.`);
    const key = handle.replace(/^@/, "").toLowerCase();
    if (list.some((r) => r.handle === key)) return fail(handleInput, `@${key} is named twice.`);
    list.push({ handle: key, bps });
  }
  if (list.length === 0) return fail(recipients.addButton, "Name at least one recipient.");
  if (list.length > config.maxRecipients)
    return fail(recipients.addButton, `Name at most ${config.maxRecipients} recipients.`);
  const sum = list.reduce((a, r) => a + r.bps, 0);
  if (sum !== 10_000)
    return fail(
      rows[0]!.querySelector<HTMLInputElement>("input[data-share]")!,
      `The shares add up to ${bpsToPercent(sum)}; they must total 100%.`,
    );
  return list;
}
