import { sql } from "drizzle-orm";
import { customType } from "drizzle-orm/sqlite-core";
import { AppError } from "../src/lib/errors";

/**
 * The database is opened with `safeIntegers`, so every INTEGER arrives as a bigint. Money keeps it;
 * ids, counts and times become numbers, refusing any value outside the exact float range rather
 * than rounding it.
 */
export const lamports = customType<{ data: bigint; driverData: bigint | number }>({
  dataType: () => "integer",
  toDriver: (value) => {
    if (typeof value !== "bigint") throw new AppError("DB_LAMPORTS_NOT_BIGINT");
    return value;
  },
  fromDriver: (value) => BigInt(value),
});

function toSafeNumber(value: bigint | number): number {
  if (typeof value === "number") return value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new AppError("DB_INTEGER_INEXACT");
  }
  return Number(value);
}

export const int = customType<{ data: number; driverData: bigint | number }>({
  dataType: () => "integer",
  toDriver: (value) => {
    if (!Number.isSafeInteger(value)) throw new AppError("DB_INTEGER_UNSAFE");
    return value;
  },
  fromDriver: toSafeNumber,
});

export const bool = customType<{ data: boolean; driverData: bigint | number }>({
  dataType: () => "integer",
  toDriver: (value) => (value ? 1 : 0),
  fromDriver: (value) => Number(value) === 1,
});

/** A float for market figures only (USD caps and volumes); never money of this service. */
export const usd = customType<{ data: number; driverData: number }>({
  dataType: () => "real",
  toDriver: (value) => value,
  fromDriver: (value) => Number(value),
});

/**
 * An INTEGER PRIMARY KEY (SQLite's rowid): inserting NULL makes SQLite assign the next id, and
 * the runtime default lets inserts leave it out.
 */
export const rowId = (name: string) =>
  int(name)
    .primaryKey()
    .$defaultFn(() => sql`NULL` as unknown as number);
