/**
 * The launch draft: what the launch form sends to `POST /api/launch/intent`. SPEC leaves its shape
 * to us (docs/launches.md); the schema here is the one the route validates against and the OpenAPI
 * document shows. Rules that depend on configuration (recipient count, first-buy cap) and rules a
 * schema cannot say (bps sum, distinct handles, https links) are checked in `checkDraft`.
 */
import { PublicKey } from "@solana/web3.js";
import { t, type Static } from "elysia";
import type { Config } from "../config";
import { isAddress } from "@fee-ledger/localnet/address";
import { HANDLE_PATTERN, type LaunchRecipientInput } from "../tokens";
import { Int } from "../http/public-schemas";
import { AppError } from "../lib/errors";

/** The launch program's own limits (PUMP.md §2): name ≤32, symbol ≤13, uri ≤200 characters. */
const NAME_MAX_CHARS = 32;
const SYMBOL_MAX_CHARS = 13;
const DESCRIPTION_MAX_CHARS = 1000;
const LINK_MAX_CHARS = 200;

const LinkSchema = t.Union([t.String({ maxLength: LINK_MAX_CHARS, description: "https only" }), t.Null()]);

const DraftRecipientSchema = t.Object(
  {
    handle: t.String({
      description: "identity-provider handle, 1 to 15 letters, digits or underscores, optional leading @",
    }),
    // A JSON number only: Elysia's t.Integer would also take "5000" or "0x10" and document "string or integer".
    bps: Int({
      minimum: 1,
      maximum: 10_000,
      description: "share of the recipients' part; all recipients sum to 10000",
    }),
  },
  { title: "LaunchDraftRecipient" },
);

export const DraftSchema = t.Object(
  {
    name: t.String({ description: `token name, 1 to ${NAME_MAX_CHARS} characters` }),
    symbol: t.String({ description: `ticker, 1 to ${SYMBOL_MAX_CHARS} characters, no spaces` }),
    description: t.Optional(t.String({ description: `up to ${DESCRIPTION_MAX_CHARS} characters` })),
    website: t.Optional(LinkSchema),
    twitter: t.Optional(LinkSchema),
    telegram: t.Optional(LinkSchema),
    recipients: t.Array(DraftRecipientSchema, { description: "1 to maxRecipients (see /api/launch/config)" }),
    firstBuyLamports: t.Optional(
      t.String({
        pattern: "^[0-9]{1,20}$",
        description: "SOL the deployer buys in the create transaction; up to maxFirstBuyLamports; default 0",
      }),
    ),
  },
  { title: "LaunchDraft", additionalProperties: false },
);

export type DraftInput = Static<typeof DraftSchema>;

/** A draft after every rule was checked, in the form the rest of the launch code uses. */
export interface Draft {
  name: string;
  symbol: string;
  description: string;
  website: string | null;
  twitter: string | null;
  telegram: string | null;
  /** handles without '@', casing kept (it becomes displayHandle) */
  recipients: LaunchRecipientInput[];
  firstBuyLamports: bigint;
}

/** What the intent stores as JSON: bigint as a decimal string, plus the platform share in force at prepare. */
export interface StoredDraft extends Omit<Draft, "firstBuyLamports"> {
  firstBuyLamports: string;
  /** SPEC: the platform share is fixed at launch; the value shown at prepare is the one recorded */
  platformBps: number;
}

export const toStoredDraft = (d: Draft, platformBps: number): StoredDraft => ({
  ...d,
  firstBuyLamports: d.firstBuyLamports.toString(),
  platformBps,
});

const chars = (s: string) => [...s].length;
// Control characters would end up on chain and in every wallet that shows the token.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function text(value: string, field: "name" | "symbol" | "description", min: number, max: number): string {
  const v = value.trim();
  if (chars(v) < min || chars(v) > max)
    throw new AppError("LAUNCH_FIELD_LENGTH", { field, minimum: min, maximum: max });
  if (CONTROL.test(v)) throw new AppError("LAUNCH_FIELD_CONTROL", { field });
  return v;
}

function link(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null || value.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AppError("LAUNCH_LINK_NOT_URL", { field });
  }
  if (url.protocol !== "https:") throw new AppError("LAUNCH_LINK_NOT_HTTPS", { field });
  // Credentials in a public link are a mistake at best and a phishing trick at worst.
  if (url.username || url.password) throw new AppError("LAUNCH_LINK_CREDENTIALS", { field });
  return url.toString();
}

export function checkDraft(input: DraftInput, config: Pick<Config, "maxRecipients" | "maxFirstBuyLamports">): Draft {
  const name = text(input.name, "name", 1, NAME_MAX_CHARS);
  const symbol = text(input.symbol, "symbol", 1, SYMBOL_MAX_CHARS);
  if (/\s/.test(symbol)) throw new AppError("LAUNCH_SYMBOL_SPACES");
  const description = text(input.description ?? "", "description", 0, DESCRIPTION_MAX_CHARS);

  const list = input.recipients;
  if (list.length < 1 || list.length > config.maxRecipients) {
    throw new AppError("LAUNCH_RECIPIENT_COUNT", { maximum: config.maxRecipients });
  }
  const seen = new Set<string>();
  let sum = 0;
  const recipients = list.map((r) => {
    const handle = r.handle.trim().replace(/^@/, "");
    if (!HANDLE_PATTERN.test(handle)) throw new AppError("LAUNCH_RECIPIENT_HANDLE_INVALID");
    const key = handle.toLowerCase();
    if (seen.has(key)) throw new AppError("LAUNCH_RECIPIENT_TWICE");
    seen.add(key);
    if (!Number.isInteger(r.bps) || r.bps < 1 || r.bps > 10_000) throw new AppError("LAUNCH_RECIPIENT_BPS_INVALID");
    sum += r.bps;
    return { handle, bps: r.bps };
  });
  if (sum !== 10_000) throw new AppError("LAUNCH_BPS_SUM");

  const firstBuyLamports = BigInt(input.firstBuyLamports ?? "0");
  if (firstBuyLamports > config.maxFirstBuyLamports) {
    throw new AppError("LAUNCH_FIRST_BUY_TOO_LARGE", { maximumLamports: config.maxFirstBuyLamports });
  }

  return {
    name,
    symbol,
    description,
    website: link(input.website, "website"),
    twitter: link(input.twitter, "twitter"),
    telegram: link(input.telegram, "telegram"),
    recipients,
    firstBuyLamports,
  };
}

/** A wallet signs, so it must be a point on the curve; a program-derived address cannot sign. */
export function isWalletAddress(value: unknown): value is string {
  return isAddress(value) && PublicKey.isOnCurve(new PublicKey(value).toBytes());
}
