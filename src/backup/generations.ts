/**
 * Generation names: the UTC time the snapshot was taken, to the millisecond, and the first 16 hex
 * digits of the SHA-256 of the sealed object (`20261126T221500123Z-1a2b3c4d5e6f7081`). Names sort
 * in time order, so the newest is the largest. The hash only tells a restore that an object was
 * damaged; what a restore trusts is the seal (src/backup/seal.ts), made for the name's time, which
 * whoever writes the bucket cannot make.
 */
/** Where a target keeps its generations (a target's prefix; target.ts parses the URL). */
interface GenerationPrefix {
  /** without leading or trailing slashes; "" at the bucket's root */
  prefix: string;
}

export const GENERATION_NAME = /^\d{8}T\d{9}Z-[0-9a-f]{16}$/;

/** Each generation is one object `<prefix>/<name>.db`. */
const OBJECT_SUFFIX = ".db";

/** The time part of a name (`20261126T221500123Z`). */
export function generationStamp(atMs: number): string {
  const iso = new Date(atMs).toISOString(); // 2026-11-26T22:15:00.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}Z`;
}

export function generationName(atMs: number, sha256Hex: string): string {
  return `${generationStamp(atMs)}-${sha256Hex.slice(0, 16)}`;
}

/** What a generation is sealed for: its time, so a genuine generation copied under a newer name does not open. */
export function sealedForGeneration(stamp: string): string {
  return `generation ${stamp}`;
}

/** The time part of a generation's name. */
export function stampOf(generation: string): string {
  return generation.slice(0, generation.indexOf("-"));
}

/** The hash part of a name, which the object's bytes must match. */
export function checksumOf(generation: string): string {
  return generation.slice(generation.indexOf("-") + 1);
}

export function objectKey(target: GenerationPrefix, generation: string): string {
  return target.prefix === "" ? `${generation}${OBJECT_SUFFIX}` : `${target.prefix}/${generation}${OBJECT_SUFFIX}`;
}

/** The listing prefix of a target's generations. */
export function listPrefix(target: GenerationPrefix): string {
  return target.prefix === "" ? "" : `${target.prefix}/`;
}

/** The generation an object key holds, or null for any other object under the prefix. */
export function generationOfKey(target: GenerationPrefix, key: string): string | null {
  const prefix = listPrefix(target);
  if (!key.startsWith(prefix) || !key.endsWith(OBJECT_SUFFIX)) return null;
  const name = key.slice(prefix.length, -OBJECT_SUFFIX.length);
  return GENERATION_NAME.test(name) ? name : null;
}

/** Newest first. */
export function newestFirst(generations: readonly string[]): string[] {
  return [...generations].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}

/**
 * The generations to delete so that `keep` remain. The one just uploaded is never among them,
 * even when a clock step back makes it sort below older ones.
 */
export function generationsToPrune(generations: readonly string[], keep: number, justUploaded: string): string[] {
  const others = newestFirst(generations.filter((g) => g !== justUploaded));
  return others.slice(Math.max(0, keep - 1));
}
