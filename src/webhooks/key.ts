/**
 * The key every endpoint's signing secret is derived from: secrets stay out of the database (a
 * copy of service.db reveals none). From WEBHOOKS_KEY or WEBHOOKS_KEY_FILE; without either, a key
 * generated once into DATA_DIR/webhooks-key (mode 600), which every sealed off-site generation
 * carries and a restore writes back (src/backup/volume-secrets.ts): a volume lost and restored
 * keeps every endpoint's secret. Changing the key changes every secret.
 */
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import { readOrCreateSecretFile } from "../lib/secret-file";

const keys = new Map<string, Buffer>();

export function webhookSigningKey(config: Pick<Config, "dataDir" | "webhooksKey" | "webhooksKeyFile">): Buffer {
  if (config.webhooksKey) return Buffer.from(config.webhooksKey, "utf8");
  const path = config.webhooksKeyFile ?? join(config.dataDir, "webhooks-key");
  let key = keys.get(path);
  if (key) return key;
  // The request thread (registering an endpoint) and the jobs thread (the sender) can both be first.
  const text = config.webhooksKeyFile
    ? readFileSync(path, "utf8").trim()
    : readOrCreateSecretFile(path, () => randomBytes(32).toString("base64"));
  key = Buffer.from(text, "utf8");
  if (key.length < 32) throw new AppError("WEBHOOK_KEY_TOO_SHORT");
  keys.set(path, key);
  return key;
}

/** The endpoint's Standard Webhooks secret: `whsec_` + base64 of 32 bytes. */
export function webhookSecret(key: Buffer, webhookId: string): string {
  return `whsec_${createHmac("sha256", key).update(`webhook-secret\u0000${webhookId}`).digest("base64")}`;
}
