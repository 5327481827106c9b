/**
 * Named operators (ADMIN_OPERATORS_FILE): one line `name:hash` each, the hash an argon2id password
 * hash (`Bun.password.hash`), so the audit names the person behind every admin action instead of
 * the shared ADMIN_SECRET's `admin-api`/`admin-page`. The file lives beside the treasury key, not
 * in the database, so a restore or a leaked backup neither brings back nor exposes a credential.
 *
 * An argon2id check costs tens of milliseconds of CPU, and every admin request is checked twice
 * (the front door, then the route): a credential that verified once is remembered for the
 * process by a digest keyed with its stored hash (memory only, never written), and a credential
 * from an address already over its failure limit is refused without hashing, so wrong guesses
 * cannot buy the server's CPU.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Config, ConfigError } from "../config";

/** The shared ADMIN_SECRET names no person: its rows say which way it came, as they always did. */
export const ADMIN_API_ACTOR = "admin-api";
export const ADMIN_PAGE_ACTOR = "admin-page";

/** Lower-case letters, digits, `_` and `-`: what the audit, the cookie and a log line carry unescaped. */
const OPERATOR_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Actors the service writes itself (the shared secret's two, the reconciliation's, the system's). */
const RESERVED_NAMES = new Set([ADMIN_API_ACTOR, ADMIN_PAGE_ACTOR, "system", "reconciliation"]);
const MAX_PASSWORD_CHARS = 1024;
const REMEMBERED = 256;

/** Operator name to its argon2id hash. */
export type Operators = ReadonlyMap<string, string>;

const NONE: Operators = new Map();
const loaded = new WeakMap<object, Operators>();
const remembered = new Map<string, string>();

/** The file's operators; a line is never echoed (a password pasted by mistake must not reach a log). */
function parseOperators(text: string): Operators {
  const operators = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const refuse = (why: string) => new ConfigError(`ADMIN_OPERATORS_FILE line ${index + 1}: ${why}`);
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const hash = colon < 0 ? "" : line.slice(colon + 1);
    if (!OPERATOR_NAME.test(name)) throw refuse("the name must be 1 to 32 of a-z, 0-9, _ and - (name:hash)");
    if (RESERVED_NAMES.has(name)) throw refuse("that name is reserved for the service's own audit rows");
    if (operators.has(name)) throw refuse("the name is listed twice");
    if (!/^\$argon2id\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(hash)) {
      throw refuse("the hash must be an argon2id hash from Bun.password.hash");
    }
    operators.set(name, hash);
  });
  return operators;
}

/** The operators of this configuration, read once (a change takes a restart). */
export function operatorsOf(config: Pick<Config, "adminOperatorsFile">): Operators {
  if (config.adminOperatorsFile === null) return NONE;
  const known = loaded.get(config);
  if (known) return known;
  let text: string;
  try {
    text = readFileSync(config.adminOperatorsFile, "utf8");
  } catch (error) {
    throw new ConfigError("ADMIN_OPERATORS_FILE cannot be read", { cause: error });
  }
  const operators = parseOperators(text);
  if (operators.size === 0) throw new ConfigError("ADMIN_OPERATORS_FILE names no operator");
  loaded.set(config, operators);
  return operators;
}

/**
 * The operator `name` when `password` is theirs, else null. `mayHash` says whether a credential
 * not verified before may cost a hash now (false past the caller's failure limit).
 */
export function verifyOperator(
  operators: Operators,
  name: string,
  password: string,
  mayHash: () => boolean,
): string | null {
  const hash = operators.get(name);
  if (hash === undefined || password.length === 0 || password.length > MAX_PASSWORD_CHARS) return null;
  const key = createHash("sha256").update(`${hash}\0${name}\0${password}`).digest("hex");
  if (remembered.get(key) === name) return name;
  if (!mayHash()) return null;
  let matches = false;
  try {
    matches = Bun.password.verifySync(password, hash);
  } catch {
    matches = false;
  }
  if (!matches) return null;
  if (remembered.size >= REMEMBERED) remembered.clear();
  remembered.set(key, name);
  return name;
}

/** `Authorization: Basic base64(name:password)`, or null when the header is not that. */
export function basicCredential(header: string | null): { name: string; password: string } | null {
  const match = header === null ? null : /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
