/**
 * Backup targets: a local file path, or `s3://bucket/prefix` on an S3-compatible store, where
 * `s3://bucket/prefix/<generation>` names one generation (for `restore`).
 */
import { AppError } from "../lib/errors";
import { GENERATION_NAME } from "./generations";

export interface S3Target {
  bucket: string;
  /** without leading or trailing slashes; "" when generations sit at the bucket's root */
  prefix: string;
  /** a named generation (restore only); null: the newest */
  generation: string | null;
}

export function isS3Url(target: string): boolean {
  return target.startsWith("s3://");
}

/** Parses `s3://bucket[/prefix][/<generation>[.db]]`; throws a one-line error on anything else. */
export function parseS3Url(target: string): S3Target {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(target.trim());
  if (!match)
    throw new AppError(
      "CONFIG_INVALID",
      "an S3 target looks like s3://bucket/prefix (bucket: 3-63 lowercase letters, digits, dots, dashes)",
    );
  const parts = (match[2] ?? "").split("/").filter((part) => part !== "");
  const last = parts.at(-1)?.replace(/\.db$/, "");
  const generation = last !== undefined && GENERATION_NAME.test(last) ? last : null;
  if (generation !== null) parts.pop();
  return { bucket: match[1]!, prefix: parts.join("/"), generation };
}

/** The URL as the operator reads it back (no credentials or endpoint are ever part of it). */
export function s3UrlOf(target: Pick<S3Target, "bucket" | "prefix">, generation?: string): string {
  return `s3://${[target.bucket, target.prefix, generation].filter((part) => part).join("/")}`;
}
