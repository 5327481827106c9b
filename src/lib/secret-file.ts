/**
 * A secret generated once into a file (the local chain's treasury key and master secret, the
 * webhook signing key). Two threads of the process can ask for the same file at its first start,
 * so the file appears whole or not at all: the content is written to a private temporary file and
 * linked to its name, which fails when another writer got there first; everyone then reads the one
 * file that won. A plain write let the loser either fail (`wx`: EEXIST) or read a file not yet
 * written, and without `wx` two writers could hand two threads two different secrets.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export function readOrCreateSecretFile(path: string, create: () => string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.partial`;
    writeFileSync(temporary, create(), { mode: 0o600, flag: "wx" });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  chmodSync(path, 0o600);
  return readFileSync(path, "utf8").trim();
}
