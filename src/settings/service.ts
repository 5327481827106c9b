/**
 * Settings in force: thresholds and pause flags an admin can change at run time. They live in the
 * `settings` table as text; a key that was never set falls back to the configured default, so a
 * fresh deployment behaves exactly as its environment says.
 */
import type { Db } from "../../db/client";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { query } from "../../db/statement";

const SETTING_KEYS = {
  minClaimLamports: "min_claim_lamports",
  autopayMinLamports: "autopay_min_lamports",
  claimsPaused: "claims_paused",
  launchesPaused: "launches_paused",
} as const;

type SettingKey = (typeof SETTING_KEYS)[keyof typeof SETTING_KEYS];
/** Every key this table holds: the admin settings, and those other features keep here. */
type StoredKey =
  | SettingKey
  | typeof PLATFORM_TOKEN_MINT_KEY
  | typeof LAST_RECONCILIATION_KEY
  | typeof NEXT_CREATOR_INDEX_KEY
  | typeof SOL_USD_KEY;

const I64_MAX = 9_223_372_036_854_775_807n;

/** The stored text of `key`, or null when it was never set. */
export function readSetting(db: Db, key: StoredKey): string | null {
  return query<{ value: string }, [StoredKey]>(db, "SELECT value FROM settings WHERE key = ?").get(key)?.value ?? null;
}

/** Stores `value` under `key`, in the caller's transaction when there is one. */
export function writeSetting(db: Db, key: StoredKey, value: string): void {
  query<never, [StoredKey, string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(key, value);
}

const read = readSetting;
const write = writeSetting;

function readLamports(db: Db, key: SettingKey, fallback: bigint): bigint {
  const raw = read(db, key);
  if (raw === null) return fallback;
  if (/^\d{1,19}$/.test(raw) && BigInt(raw) <= I64_MAX) return BigInt(raw);
  // Only the setters write here, so this is a hand edit gone wrong: keep serving on the default.
  log.warn("stored setting is not a whole number of lamports; using the default", { key });
  return fallback;
}

function readFlag(db: Db, key: SettingKey): boolean {
  const raw = read(db, key);
  if (raw === null) return false;
  const v = raw.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  // An unreadable pause flag is treated as paused: stopping money is the safe side.
  log.warn("stored setting is not a flag; treating it as on", { key });
  return true;
}

function checkLamports(value: bigint): string {
  if (typeof value !== "bigint" || value < 0n || value > I64_MAX) throw new AppError("SETTING_LAMPORTS_INVALID");
  return value.toString();
}

export const getMinClaimLamports = (db: Db, config: Config): bigint =>
  readLamports(db, SETTING_KEYS.minClaimLamports, config.minClaimLamports);
export const getAutopayMinLamports = (db: Db, config: Config): bigint =>
  readLamports(db, SETTING_KEYS.autopayMinLamports, config.autopayMinLamports);
export const getClaimsPaused = (db: Db): boolean => readFlag(db, SETTING_KEYS.claimsPaused);
export const getLaunchesPaused = (db: Db): boolean => readFlag(db, SETTING_KEYS.launchesPaused);

export const setMinClaimLamports = (db: Db, value: bigint): void =>
  write(db, SETTING_KEYS.minClaimLamports, checkLamports(value));
export const setAutopayMinLamports = (db: Db, value: bigint): void =>
  write(db, SETTING_KEYS.autopayMinLamports, checkLamports(value));
export const setClaimsPaused = (db: Db, paused: boolean): void =>
  write(db, SETTING_KEYS.claimsPaused, paused ? "1" : "0");
export const setLaunchesPaused = (db: Db, paused: boolean): void =>
  write(db, SETTING_KEYS.launchesPaused, paused ? "1" : "0");

export interface SettingsInForce {
  minClaimLamports: bigint;
  autopayMinLamports: bigint;
  claimsPaused: boolean;
  launchesPaused: boolean;
}

export function settingsInForce(db: Db, config: Config): SettingsInForce {
  return {
    minClaimLamports: getMinClaimLamports(db, config),
    autopayMinLamports: getAutopayMinLamports(db, config),
    claimsPaused: getClaimsPaused(db),
    launchesPaused: getLaunchesPaused(db),
  };
}

/** Set through the admin action of /api/ca; null until the platform token is published. */
export const PLATFORM_TOKEN_MINT_KEY = "platform_token_mint";
/** The last proof-of-reserves check of the sweep job, as JSON. */
export const LAST_RECONCILIATION_KEY = "last_reconciliation";
/** The launches' creator-index counter (src/launches/intents.ts). */
export const NEXT_CREATOR_INDEX_KEY = "next_creator_index";
/** SOL's price in USD as the market source last gave it, `{usd, atMs}` as JSON (the market job). */
export const SOL_USD_KEY = "sol_usd";

export function getPlatformTokenMint(db: Db): string | null {
  return readSetting(db, PLATFORM_TOKEN_MINT_KEY);
}

export function setLastReconciliation(
  db: Db,
  value: { treasuryLamports: bigint; owedLamports: bigint; checkedAtMs: number },
): void {
  writeSetting(
    db,
    LAST_RECONCILIATION_KEY,
    JSON.stringify({
      treasuryLamports: value.treasuryLamports.toString(),
      owedLamports: value.owedLamports.toString(),
      checkedAtMs: value.checkedAtMs,
    }),
  );
}
