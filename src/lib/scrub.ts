/**
 * Error text that may reach the health route or a log: URLs (which can carry provider keys),
 * environment setting names, file paths and long base58/hex secrets are cut out.
 */
const SETTING_NAMES =
  /\b(PORT|HOST|DATA_DIR|PUBLIC_URL|CHAIN|RPC_URL|YELLOWSTONE_URL|YELLOWSTONE_TOKEN|LOCAL_CHAIN_[A-Z_]+|TREASURY_KEY(_FILE)?|MASTER_SECRET(_FILE)?|CRON_SECRET|ADMIN_SECRET|METRICS_SECRET|JOBS|[A-Z]+_SCHEDULE|JOB_LEASE_MS|SWEEP_MIN_LAMPORTS|PLATFORM_BPS|PLATFORM_BUYBACK_BPS|MAX_[A-Z_]+|MIN_CLAIM_LAMPORTS|AUTOPAY_MIN_LAMPORTS|RATE_LIMIT|TRUST_PROXY|TRUSTED_PROXIES|UPLOAD_BYTES_PER_IP_DAY|DEV_LOGIN|DEMO|IDP_[A-Z_]+|PINATA_[A-Z_]+|IPFS_[A-Z_]+|MARKET_API_URL|LOG_LEVEL)\b/g;

export function scrubErrorText(input: unknown, maxLength = 300): string {
  let text = input instanceof Error ? input.message : String(input);
  text = text
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "[url]")
    .replace(/\b(?:[\w.-]+\.)+(?:com|net|io|org|cloud|xyz|dev)(?::\d+)?(?:\/[^\s"'<>]*)?/gi, "[host]")
    .replace(/(?:\/[\w.-]+){2,}/g, "[path]")
    .replace(SETTING_NAMES, "[setting]")
    .replace(/\b[1-9A-HJ-NP-Za-km-z]{64,}\b/g, "[secret]")
    .replace(/\b[0-9a-f]{48,}\b/gi, "[secret]")
    .replace(/\s+/g, " ")
    .trim();
  if (text.length > maxLength) text = `${text.slice(0, maxLength - 1)}…`;
  return text === "" ? "error" : text;
}
