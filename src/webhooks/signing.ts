/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a `whsec_`-prefixed base64 secret;
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`.
 */
import { createHmac } from "node:crypto";

const PREFIX = "whsec_";

function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  const mac = createHmac("sha256", key).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export function webhookHeaders(secret: string, id: string, timestampSec: number, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSec),
    "webhook-signature": signWebhook(secret, id, timestampSec, body),
  };
}
