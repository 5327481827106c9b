/**
 * Command keys: the memo every transaction the service signs carries, naming the money command it
 * is, so the treasury's history on chain is a journal a restored database can be reconciled with.
 *
 * Compact ASCII, `fl1:<kind>:<body>`; ids and amounts in base 36; a user id that is a decimal
 * number (X's) as `~` and its base 36, any other percent-encoded (only the separators are escaped):
 *
 * - `fl1:p:<payout>.<c|a>.<user>[.r<first payout>],…` a payout batch, one item per transfer in
 *   instruction order (the transfer gives the wallet and the lamports); `r` names the first payout
 *   of the chain of replacements the payout ends
 * - `fl1:s:<token>,…` a sweep batch, one item per token swept (the sweep rows are keyed by
 *   signature and token)
 * - `fl1:b:<buy>.<token>:<order>.<lamports>.<u|p>[.<user>],…` a burn buy: the buy's id, its token,
 *   and the orders (or parts of orders) it spends
 * - `fl1:x:<buy>` the burn of a buy's tokens
 * - `fl1:w:<withdrawal>` a platform withdrawal
 * - `fl1:a:<anchor>` a liabilities anchor
 */
import { AppError } from "../lib/errors";

const COMMAND_KEY_PREFIX = "fl1:";

interface PayoutItem {
  payoutId: number;
  kind: "claim" | "autopay";
  idpUserId: string;
  /**
   * When this payout replaces one whose transaction provably expired: the first payout of that
   * chain of replacements (the claim's or the autopay's own), however many replaced it since; null
   * for a first payout. The first, not the last: a restored database may hold the chain's start
   * and none of the replacements made after the backup.
   */
  firstPayoutId: number | null;
}

export interface BurnOrderItem {
  orderId: number;
  lamports: bigint;
  source: "recipient" | "platform";
  /** the recipient's user id; null for the platform's buyback */
  idpUserId: string | null;
}

export type CommandKey =
  | { kind: "payouts"; items: PayoutItem[] }
  | { kind: "sweeps"; tokenIds: number[] }
  | { kind: "burn-buy"; buyId: number; tokenId: number; orders: BurnOrderItem[] }
  | { kind: "burn"; buyId: number }
  | { kind: "withdrawal"; withdrawalId: number }
  | { kind: "anchor"; anchorId: number };

const id36 = (n: number): string => {
  if (!Number.isSafeInteger(n) || n < 0) throw new AppError("COMMAND_KEY_ID_INVALID");
  return n.toString(36);
};

function unid36(text: string): number {
  if (!/^[0-9a-z]{1,11}$/.test(text)) throw malformed();
  const n = Number.parseInt(text, 36);
  if (!Number.isSafeInteger(n)) throw malformed();
  return n;
}

const USER_ESCAPES = /[%.,:~]/g;
/** X user ids are decimal numbers up to 2^64: written in base 36 after a `~`, 13 characters at most instead of 20. */
const DECIMAL_ID = /^[1-9][0-9]{0,19}$/;

const userOut = (user: string): string => {
  if (user.length === 0) throw new AppError("COMMAND_KEY_USER_EMPTY");
  if (DECIMAL_ID.test(user)) return `~${BigInt(user).toString(36)}`;
  return user.replace(USER_ESCAPES, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
};

function userIn(text: string): string {
  if (text.length === 0) throw malformed();
  if (text.startsWith("~")) return base36BigInt(text.slice(1), 14).toString();
  try {
    return decodeURIComponent(text);
  } catch {
    throw malformed();
  }
}

function base36BigInt(text: string, digitsMax: number): bigint {
  if (text.length === 0 || text.length > digitsMax || !/^[0-9a-z]+$/.test(text)) throw malformed();
  return [...text].reduce((n, c) => n * 36n + BigInt(Number.parseInt(c, 36)), 0n);
}

function malformed(): AppError {
  return new AppError("COMMAND_KEY_MALFORMED");
}

/** The memo text of a command key. */
export function encodeCommandKey(key: CommandKey): string {
  switch (key.kind) {
    case "payouts":
      return `${COMMAND_KEY_PREFIX}p:${key.items
        .map(
          (p) =>
            `${id36(p.payoutId)}.${p.kind === "claim" ? "c" : "a"}.${userOut(p.idpUserId)}${p.firstPayoutId === null ? "" : `.r${id36(p.firstPayoutId)}`}`,
        )
        .join(",")}`;
    case "sweeps":
      return `${COMMAND_KEY_PREFIX}s:${key.tokenIds.map(id36).join(",")}`;
    case "burn-buy":
      return `${COMMAND_KEY_PREFIX}b:${id36(key.buyId)}.${id36(key.tokenId)}:${key.orders
        .map((o) => {
          if (o.lamports <= 0n) throw new AppError("COMMAND_KEY_BURN_PART_INVALID");
          const who = o.source === "platform" ? "p" : `u.${userOut(o.idpUserId ?? "")}`;
          return `${id36(o.orderId)}.${o.lamports.toString(36)}.${who}`;
        })
        .join(",")}`;
    case "burn":
      return `${COMMAND_KEY_PREFIX}x:${id36(key.buyId)}`;
    case "withdrawal":
      return `${COMMAND_KEY_PREFIX}w:${id36(key.withdrawalId)}`;
    case "anchor":
      return `${COMMAND_KEY_PREFIX}a:${id36(key.anchorId)}`;
  }
}

/** The command key a memo text carries, or null when the text is not one (another memo). Throws on a malformed key. */
export function decodeCommandKey(text: string): CommandKey | null {
  if (!text.startsWith(COMMAND_KEY_PREFIX)) return null;
  const body = text.slice(COMMAND_KEY_PREFIX.length);
  const kind = body.slice(0, 2);
  const rest = body.slice(2);
  switch (kind) {
    case "p:":
      return { kind: "payouts", items: items(rest).map(payoutItem) };
    case "s:":
      return { kind: "sweeps", tokenIds: items(rest).map(unid36) };
    case "b:": {
      const [head, list] = splitOnce(rest, ":");
      const [buy, token] = splitOnce(head, ".");
      return { kind: "burn-buy", buyId: unid36(buy), tokenId: unid36(token), orders: items(list).map(orderItem) };
    }
    case "x:":
      return { kind: "burn", buyId: unid36(rest) };
    case "w:":
      return { kind: "withdrawal", withdrawalId: unid36(rest) };
    case "a:":
      return { kind: "anchor", anchorId: unid36(rest) };
    default:
      throw malformed();
  }
}

function items(text: string): string[] {
  const list = text.split(",");
  if (list.some((item) => item.length === 0)) throw malformed();
  return list;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  if (at < 0) throw malformed();
  return [text.slice(0, at), text.slice(at + 1)];
}

function payoutItem(text: string): PayoutItem {
  const parts = text.split(".");
  if (parts.length < 3 || parts.length > 4) throw malformed();
  const [id, kind, user, replaced] = parts as [string, string, string, string | undefined];
  if (kind !== "c" && kind !== "a") throw malformed();
  if (replaced !== undefined && !replaced.startsWith("r")) throw malformed();
  return {
    payoutId: unid36(id),
    kind: kind === "c" ? "claim" : "autopay",
    idpUserId: userIn(user),
    firstPayoutId: replaced === undefined ? null : unid36(replaced.slice(1)),
  };
}

function orderItem(text: string): BurnOrderItem {
  const parts = text.split(".");
  const [id, lamports, source, user] = parts as [string, string, string, string | undefined];
  const amount = base36BigInt(lamports ?? "", 13);
  if (amount <= 0n) throw malformed();
  if (source === "p" && parts.length === 3) {
    return { orderId: unid36(id), lamports: amount, source: "platform", idpUserId: null };
  }
  if (source === "u" && parts.length === 4 && user !== undefined) {
    return { orderId: unid36(id), lamports: amount, source: "recipient", idpUserId: userIn(user) };
  }
  throw malformed();
}
