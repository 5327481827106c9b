/**
 * Every setting comes from the environment (docs/configuration.md lists them all). `loadConfig` validates the lot
 * and throws an AppError `CONFIG_INVALID` whose message is one line naming the bad variable, never
 * its value: secrets must not reach a log. With nothing set the service runs on its embedded defaults.
 */
import { join, resolve } from "node:path";
import { PublicKey } from "@solana/web3.js";
import { parseTrustedProxies } from "./lib/trusted-proxies";
import { AppError, isAppError } from "./lib/errors";

/** Bearer secrets shorter than this are refused at start: guessable within the failed-attempt limit's reach. */
const MIN_BEARER_SECRET_CHARS = 32;

/**
 * The AppError `CONFIG_INVALID` under a name callers and tests can use with `instanceof`; nothing
 * more than the code. `exitOnConfigError` goes by the code, so a plain AppError of it exits too.
 */
export class ConfigError extends AppError<"CONFIG_INVALID"> {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("CONFIG_INVALID", message, {}, options);
  }
}

type ChainKind = "local" | "pump";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databasePath: string;
  /** the site's own origin, for Origin checks, OAuth redirects and the launch message */
  publicUrl: string;
  chain: ChainKind;
  rpcUrl: string | null;
  grpcUrl: string | null;
  grpcToken: string | null;
  /** `stateDir`: where the local chain keeps its state across restarts; null = in memory only */
  localChain: { rpcPort: number; grpcPort: number; slotMs: number; wsPort?: number; stateDir: string | null };
  /** secret sources: a value, or a file path; read by the chain module, never printed */
  treasuryKey: string | null;
  treasuryKeyFile: string | null;
  masterSecret: string | null;
  masterSecretFile: string | null;
  cronSecret: string | null;
  adminSecret: string | null;
  /** named operators' `name:argon2id-hash` lines (src/admin/operators.ts); read by the admin module */
  adminOperatorsFile: string | null;
  metricsSecret: string | null;
  jobsEnabled: boolean;
  schedules: Record<JobNameForConfig, string>;
  jobLeaseMs: number;
  sweepMinLamports: bigint;
  /**
   * the longest a quiet token's vaults go unread by the sweep (SWEEP_QUIET_MAX_INTERVAL_MS);
   * null: every token is read on every run
   */
  sweepQuietMaxIntervalMs: number | null;
  platformBps: number;
  platformBuybackBps: number;
  maxRecipients: number;
  /** how far below its fresh quote a burn buy may fill (basis points) */
  burnSlippageBps: number;
  /** the most one burn buy may move the price it pays (basis points); larger orders are bought in parts */
  burnMaxPriceImpactBps: number;
  /** custody controls (src/custody): breakers, review, platform withdrawals */
  custody: {
    /** lamports that may leave the treasury (payouts, burn buys, withdrawals) in a rolling hour / day */
    outflowMaxLamportsPerHour: bigint;
    outflowMaxLamportsPerDay: bigint;
    /** a single payout above this waits as `held` until an operator approves it */
    payoutReviewLamports: bigint;
    /** how far the treasury may sit below what is owed (less what is in flight) before money halts */
    shortfallToleranceLamports: bigint;
    /** the fee and rent budget a withdrawal must leave in the treasury's surplus */
    treasuryReserveLamports: bigint;
    /** where platform withdrawals go (environment only: no API changes it); null: withdrawals off */
    platformWallet: string | null;
  };
  /** priority fees and send endpoints of every transaction the service signs (src/chain/landing.ts) */
  landing: {
    feeMinMicroLamports: bigint;
    feeMaxMicroLamports: bigint;
    feePercentile: number;
    /** PRIORITY_FEE_ESTIMATOR: where the market price comes from (src/chain/landing.ts) */
    feeEstimator: "recent" | "helius" | "triton";
    feeCapLamports: bigint;
    sendUrls: string[];
    /** HISTORY_RPC_URL: an archive whose history search proves a transaction absent (never logged) */
    historyUrl: string | null;
  };
  /** how often a transaction not seen landing is sent again while its blockhash is valid */
  rebroadcastMs: number;
  maxFirstBuyLamports: bigint;
  maxImageBytes: number;
  minClaimLamports: bigint;
  autopayMinLamports: bigint;
  rateLimit: boolean;
  /** header carrying the client IP when a trusted proxy sits in front, e.g. x-forwarded-for */
  trustProxyHeader: string | null;
  devLogin: boolean;
  demo: boolean;
  idp: {
    clientId: string | null;
    clientSecret: string | null;
    authorizeUrl: string;
    tokenUrl: string;
    apiUrl: string;
    /** app-only bearer token (IDP_APP_BEARER): launches resolve named handles to user ids with it */
    appBearer: string | null;
  };
  ipfs: { pinataJwt: string | null; pinataApiUrl: string; gatewayUrl: string };
  marketApiUrl: string | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /** CIDRs of the proxies whose TRUST_PROXY header is believed (default: loopback) */
  trustedProxies: string[];
  /** Strict-Transport-Security on every answer: on a real chain, where PUBLIC_URL must be https */
  hsts: boolean;
  /** launch image and metadata bytes one client IP may store per day */
  uploadBytesPerIpDay: number;
  /** block-explorer link template with `{kind}` (`tx` or `account`) and `{id}`; null: no explorer links */
  explorerUrl: string | null;
  /** webhook destinations on loopback or private ranges are allowed (tests, local use) */
  webhooksAllowPrivate: boolean;
  /** webhook requests in flight at once per endpoint */
  webhooksMaxInFlight: number;
  /** the most tokens the indexer streams at once, newest first (INDEXER_WATCH_TOKENS) */
  indexerWatchTokens: number;
  /** the key webhook secrets are derived from: a value or a file (else generated in DATA_DIR) */
  webhooksKey: string | null;
  webhooksKeyFile: string | null;
  /** off-site backups (src/backup): the scheduled upload, and the store `backup`/`restore s3://…` use */
  backup: BackupSettings;
}

/** Where off-site backups go and how the S3-compatible store is reached; the credentials are never printed. */
interface BackupSettings {
  /** `s3://bucket/prefix` the service uploads to on `schedule` and at SIGTERM; null: no scheduled backups */
  url: string | null;
  schedule: string;
  /** generations kept under the prefix; older ones are deleted after each successful upload */
  keep: number;
  /** how long a stop waits for uploads, from the signal (BACKUP_STOP_TIMEOUT_MS); one still running then is abandoned */
  stopTimeoutMs: number;
  /** null when no key pair is set (then only local-file backups work) */
  s3: S3Settings | null;
  /** BACKUP_KEY_FILE: the key off-site objects are sealed with, outside DATA_DIR; required with BACKUP_URL */
  keyFile: string | null;
}

export interface S3Settings {
  /** null: AWS's own endpoint for the region */
  endpoint: string | null;
  region: string | null;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | null;
}

type JobNameForConfig = "sweep" | "payouts" | "burns" | "launches" | "market";

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | null {
  const value = env[name];
  if (value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function lamports(env: Env, name: string, fallback: bigint): bigint {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!/^\d{1,19}$/.test(raw)) throw new ConfigError(`${name} must be a whole number of lamports`);
  const value = BigInt(raw);
  if (value > 9_223_372_036_854_775_807n) throw new ConfigError(`${name} must be a whole number of lamports`);
  return value;
}

/** A base58 Solana address (32 bytes), or null when unset. */
function walletAddress(env: Env, name: string): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(raw) || !isSolanaAddress(raw))
    throw new ConfigError(`${name} must be a Solana address`);
  return raw;
}

function isSolanaAddress(address: string): boolean {
  try {
    return new PublicKey(address).toBytes().length === 32;
  } catch {
    return false;
  }
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (["1", "true", "on", "yes"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "off", "no"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be on or off (1/0, true/false)`);
}

function url(
  env: Env,
  name: string,
  fallback: string | null,
  protocols: string[] = ["http:", "https:"],
): string | null {
  const raw = str(env, name) ?? fallback;
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch (error) {
    throw new ConfigError(`${name} must be a URL`, { cause: error });
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must be a ${protocols.join(" or ")} URL`);
  return raw.replace(/\/+$/, "");
}

function schedule(env: Env, name: string, fallback: string): string {
  const raw = str(env, name) ?? fallback;
  // croner accepts 5 or 6 fields; a full parse happens when the scheduler starts.
  const fields = raw.split(/\s+/);
  if (fields.length < 5 || fields.length > 6) throw new ConfigError(`${name} must be a cron pattern`);
  return raw;
}

/** The chain and what may run beside it: dev login and the demo only on the local chain. */
function chainSettings(env: Env) {
  const chainRaw = (str(env, "CHAIN") ?? "local").toLowerCase();
  if (chainRaw !== "local" && chainRaw !== "pump") throw new ConfigError("CHAIN must be local or pump");
  const chain: ChainKind = chainRaw;
  const rpcUrl = url(env, "RPC_URL", null);
  const grpcUrl = url(env, "YELLOWSTONE_URL", null);
  if (chain === "pump" && rpcUrl === null) throw new ConfigError("RPC_URL is required when CHAIN is pump");

  const devLogin = flag(env, "DEV_LOGIN", chain === "local");
  if (devLogin && chain !== "local") throw new ConfigError("DEV_LOGIN is only allowed on the local chain");
  const demo = flag(env, "DEMO", chain === "local");
  if (demo && chain !== "local") throw new ConfigError("DEMO is only allowed on the local chain");
  return { chain, rpcUrl, grpcUrl, devLogin, demo };
}

/** Where the master secret and the treasury key come from; a real chain needs both. */
function keySources(env: Env, chain: ChainKind) {
  const masterSecret = str(env, "MASTER_SECRET");
  const masterSecretFile = str(env, "MASTER_SECRET_FILE");
  const treasuryKey = str(env, "TREASURY_KEY");
  const treasuryKeyFile = str(env, "TREASURY_KEY_FILE");
  if (chain === "pump" && !masterSecret && !masterSecretFile) {
    throw new ConfigError("MASTER_SECRET or MASTER_SECRET_FILE is required when CHAIN is pump");
  }
  if (chain === "pump" && !treasuryKey && !treasuryKeyFile) {
    throw new ConfigError("TREASURY_KEY or TREASURY_KEY_FILE is required when CHAIN is pump");
  }
  if (masterSecret !== null && masterSecret.length < 32) {
    throw new ConfigError("MASTER_SECRET must be at least 32 characters");
  }
  return { treasuryKey, treasuryKeyFile, masterSecret, masterSecretFile };
}

/** The proxy header that carries the client IP, and the sockets allowed to set it. */
function proxySettings(env: Env) {
  const trustProxyHeader = str(env, "TRUST_PROXY")?.toLowerCase() ?? null;
  if (trustProxyHeader !== null && !/^[a-z0-9-]{1,64}$/.test(trustProxyHeader)) {
    throw new ConfigError("TRUST_PROXY must name a header, e.g. x-forwarded-for");
  }
  const trustedProxies = (str(env, "TRUSTED_PROXIES") ?? "127.0.0.0/8,::1/128")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  try {
    parseTrustedProxies(trustedProxies);
  } catch (error) {
    throw new ConfigError("TRUSTED_PROXIES must be a comma-separated list of CIDRs, e.g. 10.0.0.0/8,::1/128", {
      cause: error,
    });
  }
  return { trustProxyHeader, trustedProxies };
}

function checkBearerSecrets(env: Env): void {
  for (const name of ["CRON_SECRET", "ADMIN_SECRET", "METRICS_SECRET"]) {
    const secret = str(env, name);
    if (secret !== null && secret.length < MIN_BEARER_SECRET_CHARS) {
      throw new ConfigError(`${name} must be at least ${MIN_BEARER_SECRET_CHARS} characters`);
    }
  }
}

const LOG_LEVELS: readonly Config["logLevel"][] = ["debug", "info", "warn", "error"];

function logLevelOf(env: Env): Config["logLevel"] {
  const raw = (str(env, "LOG_LEVEL") ?? "info").toLowerCase();
  const level = LOG_LEVELS.find((l) => l === raw);
  if (level === undefined) throw new ConfigError("LOG_LEVEL must be debug, info, warn or error");
  return level;
}

function jobSettings(env: Env) {
  return {
    jobsEnabled: flag(env, "JOBS", true),
    schedules: {
      sweep: schedule(env, "SWEEP_SCHEDULE", "*/2 * * * *"),
      payouts: schedule(env, "PAYOUTS_SCHEDULE", "* * * * *"),
      burns: schedule(env, "BURNS_SCHEDULE", "*/5 * * * *"),
      launches: schedule(env, "LAUNCHES_SCHEDULE", "* * * * *"),
      market: schedule(env, "MARKET_SCHEDULE", "*/15 * * * *"),
    },
    jobLeaseMs: int(env, "JOB_LEASE_MS", 5 * 60_000, 1_000, 60 * 60_000),
  };
}

/** Amounts, shares and sizes of launches, sweeps and payouts. */
/**
 * Landing on a congested chain (src/chain/landing.ts): the priority fee's bounds and percentile,
 * the most one transaction may pay, how often unlanded transactions are sent again, and extra
 * endpoints every send also goes to (a staked or sender endpoint).
 */
function landingSettings(env: Env): Pick<Config, "landing" | "rebroadcastMs"> {
  // The documented floor (src/chain/landing.ts): agave's fee reports are minimums, mostly 0.
  const feeMinMicroLamports = lamports(env, "PRIORITY_FEE_MIN_MICROLAMPORTS", 10_000n);
  const feeMaxMicroLamports = lamports(env, "PRIORITY_FEE_MAX_MICROLAMPORTS", 2_000_000n);
  if (feeMinMicroLamports > feeMaxMicroLamports && feeMaxMicroLamports > 0n) {
    throw new ConfigError("PRIORITY_FEE_MIN_MICROLAMPORTS must not be above PRIORITY_FEE_MAX_MICROLAMPORTS");
  }
  const sendUrls = (str(env, "SEND_RPC_URLS") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (sendUrls.length > 8) throw new ConfigError("SEND_RPC_URLS takes at most 8 URLs");
  return {
    landing: {
      feeMinMicroLamports,
      feeMaxMicroLamports,
      feePercentile: int(env, "PRIORITY_FEE_PERCENTILE", 75, 1, 100),
      feeEstimator: feeEstimatorOf(env),
      feeCapLamports: lamports(env, "PRIORITY_FEE_CAP_LAMPORTS", 10_000_000n),
      sendUrls: sendUrls.map((part) => url({ SEND_RPC_URLS: part }, "SEND_RPC_URLS", null)!),
      historyUrl: url(env, "HISTORY_RPC_URL", null),
    },
    rebroadcastMs: int(env, "REBROADCAST_MS", 2_000, 250, 60_000),
  };
}

function feeEstimatorOf(env: Env): "recent" | "helius" | "triton" {
  const raw = (str(env, "PRIORITY_FEE_ESTIMATOR") ?? "recent").toLowerCase();
  if (raw !== "recent" && raw !== "helius" && raw !== "triton")
    throw new ConfigError("PRIORITY_FEE_ESTIMATOR must be recent, helius or triton");
  return raw;
}

/** 0 reads every token on every run (as before the reading schedule); else 5 minutes to a week. */
function quietMaxInterval(env: Env): number | null {
  const ms = int(env, "SWEEP_QUIET_MAX_INTERVAL_MS", 6 * 3_600_000, 0, 7 * 86_400_000);
  if (ms !== 0 && ms < 300_000)
    throw new ConfigError("SWEEP_QUIET_MAX_INTERVAL_MS must be 0 or from 300000 to 604800000");
  return ms === 0 ? null : ms;
}

function moneySettings(env: Env) {
  return {
    sweepMinLamports: lamports(env, "SWEEP_MIN_LAMPORTS", 5_000_000n),
    sweepQuietMaxIntervalMs: quietMaxInterval(env),
    platformBps: int(env, "PLATFORM_BPS", 1000, 0, 5000),
    platformBuybackBps: int(env, "PLATFORM_BUYBACK_BPS", 0, 0, 10_000),
    maxRecipients: int(env, "MAX_RECIPIENTS", 10, 1, 10),
    maxFirstBuyLamports: lamports(env, "MAX_FIRST_BUY_LAMPORTS", 5_000_000_000n),
    maxImageBytes: int(env, "MAX_IMAGE_BYTES", 4 * 1024 * 1024, 1024, 32 * 1024 * 1024),
    minClaimLamports: lamports(env, "MIN_CLAIM_LAMPORTS", 10_000_000n),
    autopayMinLamports: lamports(env, "AUTOPAY_MIN_LAMPORTS", 10_000_000n),
    burnSlippageBps: int(env, "BURN_SLIPPAGE_BPS", 100, 0, 5_000),
    burnMaxPriceImpactBps: int(env, "BURN_MAX_PRICE_IMPACT_BPS", 200, 1, 5_000),
    custody: {
      outflowMaxLamportsPerHour: lamports(env, "OUTFLOW_MAX_LAMPORTS_PER_HOUR", 1_000_000_000_000n),
      outflowMaxLamportsPerDay: lamports(env, "OUTFLOW_MAX_LAMPORTS_PER_DAY", 5_000_000_000_000n),
      payoutReviewLamports: lamports(env, "PAYOUT_REVIEW_LAMPORTS", 100_000_000_000n),
      shortfallToleranceLamports: lamports(env, "SHORTFALL_TOLERANCE_LAMPORTS", 0n),
      treasuryReserveLamports: lamports(env, "TREASURY_RESERVE_LAMPORTS", 100_000_000n),
      platformWallet: walletAddress(env, "PLATFORM_WALLET"),
    },
  };
}

function idpSettings(env: Env): Config["idp"] {
  return {
    clientId: str(env, "IDP_CLIENT_ID"),
    clientSecret: str(env, "IDP_CLIENT_SECRET"),
    authorizeUrl: url(env, "IDP_AUTHORIZE_URL", "https://x.com/i/oauth2/authorize")!,
    tokenUrl: url(env, "IDP_TOKEN_URL", "https://api.x.com/2/oauth2/token")!,
    apiUrl: url(env, "IDP_API_URL", "https://api.x.com/2")!,
    appBearer: str(env, "IDP_APP_BEARER"),
  };
}

/**
 * The most tokens the indexer watches at once: the newest launches, which trade the most. Each
 * watched token costs about five stream filters and their cached accounts on both ends of the
 * stream (with the embedded chain both ends are this process): ~5 KB a token with the heaps'
 * slack. bench:api at 100,000 tokens with the jobs working, peak RSS: ~310-320 MB watching
 * 10,000, ~275 MB watching 3,000 (probes; 5,000 still ~303, as the maps grow in powers of two).
 * An older token loses only speed: the sweep reads every vault on each run (every 2 minutes by
 * default), and token detail refreshes a reading older than a minute.
 */
export const INDEXER_WATCH_TOKENS_DEFAULT = 3_000;

function webhookSettings(env: Env) {
  return {
    webhooksAllowPrivate: flag(env, "WEBHOOKS_ALLOW_PRIVATE", false),
    webhooksMaxInFlight: int(env, "WEBHOOKS_MAX_IN_FLIGHT", 4, 1, 64),
    indexerWatchTokens: int(env, "INDEXER_WATCH_TOKENS", INDEXER_WATCH_TOKENS_DEFAULT, 1, 100_000),
    webhooksKey: webhooksKey(env),
    webhooksKeyFile: str(env, "WEBHOOKS_KEY_FILE"),
  };
}

/** `s3://bucket` or `s3://bucket/prefix`, with S3's bucket naming rules. */
const S3_URL = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/;

/**
 * BACKUP_URL, its schedule and generations, and the S3 key pair under Bun's names (S3_* first,
 * then AWS_*). A key pair is needed only with BACKUP_URL; `backup s3://…` by hand needs it too.
 */
function backupSettings(env: Env, dataDir: string): BackupSettings {
  const target = str(env, "BACKUP_URL");
  if (target !== null && !S3_URL.test(target)) throw new ConfigError("BACKUP_URL must be an s3://bucket/prefix URL");
  const keyFile = str(env, "BACKUP_KEY_FILE") === null ? null : resolve(str(env, "BACKUP_KEY_FILE")!);
  if (keyFile !== null && (keyFile === dataDir || keyFile.startsWith(`${dataDir}/`)))
    throw new ConfigError("BACKUP_KEY_FILE must be outside DATA_DIR (a key on the volume is lost with it)");
  if (target !== null && keyFile === null)
    throw new ConfigError("BACKUP_URL needs BACKUP_KEY_FILE (the key generations are sealed with, outside DATA_DIR)");
  const accessKeyId = str(env, "S3_ACCESS_KEY_ID") ?? str(env, "AWS_ACCESS_KEY_ID");
  const secretAccessKey = str(env, "S3_SECRET_ACCESS_KEY") ?? str(env, "AWS_SECRET_ACCESS_KEY");
  if ((accessKeyId === null) !== (secretAccessKey === null))
    throw new ConfigError("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together");
  if (target !== null && accessKeyId === null)
    throw new ConfigError("BACKUP_URL needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the AWS_ names)");
  const endpoint = url(
    { S3_ENDPOINT: str(env, "S3_ENDPOINT") ?? str(env, "AWS_ENDPOINT") ?? undefined },
    "S3_ENDPOINT",
    null,
  );
  const region = str(env, "S3_REGION") ?? str(env, "AWS_REGION");
  if (region !== null && !/^[a-z0-9-]{1,32}$/.test(region))
    throw new ConfigError("S3_REGION must be a region name, e.g. us-east-1");
  return {
    url: target?.replace(/\/+$/, "") ?? null,
    schedule: schedule(env, "BACKUP_SCHEDULE", "0 * * * *"),
    keep: int(env, "BACKUP_KEEP", 24, 1, 10_000),
    // Inside Docker's default 10 s stop grace, with room for the rest of the stop.
    stopTimeoutMs: int(env, "BACKUP_STOP_TIMEOUT_MS", 5_000, 0, 60_000),
    keyFile,
    s3:
      accessKeyId === null || secretAccessKey === null
        ? null
        : {
            endpoint,
            region,
            accessKeyId,
            secretAccessKey,
            sessionToken: str(env, "S3_SESSION_TOKEN") ?? str(env, "AWS_SESSION_TOKEN"),
          },
  };
}

export function loadConfig(env: Env = process.env): Config {
  // Checked in this order, so the first bad setting named is the same whatever else is wrong.
  const port = int(env, "PORT", 3000, 0, 65535);
  const dataDir = resolve(str(env, "DATA_DIR") ?? "./data");
  const { chain, rpcUrl, grpcUrl, devLogin, demo } = chainSettings(env);
  const keys = keySources(env, chain);
  const { trustProxyHeader, trustedProxies } = proxySettings(env);
  checkBearerSecrets(env);
  const publicUrl = url(env, "PUBLIC_URL", `http://localhost:${port}`)!;
  if (chain === "pump" && !publicUrl.startsWith("https://")) {
    throw new ConfigError("PUBLIC_URL must be an https URL on a real chain");
  }
  const logLevel = logLevelOf(env);

  return {
    port,
    host: str(env, "HOST") ?? "0.0.0.0",
    dataDir,
    databasePath: join(dataDir, "service.db"),
    publicUrl,
    chain,
    rpcUrl,
    grpcUrl,
    grpcToken: str(env, "YELLOWSTONE_TOKEN"),
    localChain: {
      rpcPort: int(env, "LOCAL_CHAIN_RPC_PORT", 8899, 0, 65535),
      grpcPort: int(env, "LOCAL_CHAIN_GRPC_PORT", 10000, 0, 65535),
      slotMs: int(env, "LOCAL_CHAIN_SLOT_MS", 400, 10, 60_000),
      wsPort: str(env, "LOCAL_CHAIN_WS_PORT") === null ? undefined : int(env, "LOCAL_CHAIN_WS_PORT", 0, 0, 65535),
      // Kept beside the database, so a restart shows the chain the database remembers.
      stateDir: flag(env, "LOCAL_CHAIN_STATE", true) ? join(dataDir, "chain") : null,
    },
    ...keys,
    cronSecret: str(env, "CRON_SECRET"),
    adminSecret: str(env, "ADMIN_SECRET"),
    adminOperatorsFile: str(env, "ADMIN_OPERATORS_FILE"),
    metricsSecret: str(env, "METRICS_SECRET"),
    ...jobSettings(env),
    ...moneySettings(env),
    ...landingSettings(env),
    rateLimit: flag(env, "RATE_LIMIT", true),
    trustProxyHeader,
    devLogin,
    demo,
    idp: idpSettings(env),
    ipfs: {
      pinataJwt: str(env, "PINATA_JWT"),
      pinataApiUrl: url(env, "PINATA_API_URL", "https://api.pinata.cloud")!,
      gatewayUrl: url(env, "IPFS_GATEWAY_URL", "https://gateway.pinata.cloud/ipfs")!,
    },
    marketApiUrl: url(env, "MARKET_API_URL", chain === "pump" ? "https://api.dexscreener.com" : null),
    logLevel,
    trustedProxies,
    hsts: chain === "pump",
    uploadBytesPerIpDay: int(env, "UPLOAD_BYTES_PER_IP_DAY", 64 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    explorerUrl: explorerTemplate(env, chain),
    ...webhookSettings(env),
    backup: backupSettings(env, dataDir),
  };
}

/** Local-chain signatures exist nowhere else, so the local chain links to no explorer unless told. */
function explorerTemplate(env: Env, chain: ChainKind): string | null {
  const raw = str(env, "EXPLORER_URL") ?? (chain === "pump" ? "https://solscan.io/{kind}/{id}" : null);
  if (raw === null || raw.toLowerCase() === "off") return null;
  let parsed: URL;
  try {
    parsed = new URL(raw.replaceAll("{kind}", "tx").replaceAll("{id}", "x"));
  } catch (error) {
    throw new ConfigError("EXPLORER_URL must be a URL template containing {id}", { cause: error });
  }
  if (!raw.includes("{id}") || !["http:", "https:"].includes(parsed.protocol)) {
    throw new ConfigError("EXPLORER_URL must be an http or https URL template containing {id}");
  }
  return raw;
}

function webhooksKey(env: Env): string | null {
  const value = str(env, "WEBHOOKS_KEY");
  if (value !== null && value.length < 32) throw new ConfigError("WEBHOOKS_KEY must be at least 32 characters");
  return value;
}

/** For the process and the operator scripts: one line naming the bad setting, then exit 1. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    return exitOnConfigError(error);
  }
}

function exitOnConfigError(error: unknown): never {
  if (isAppError(error, "CONFIG_INVALID")) {
    process.stderr.write(`Invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

/** A test configuration: embedded defaults, jobs off, an isolated data dir. */
export function testConfig(overrides: Env = {}): Config {
  return loadConfig({
    DATA_DIR: `/tmp/cfl-test-${crypto.randomUUID()}`,
    JOBS: "0",
    DEMO: "0",
    // Tests trade and sweep at once, with no indexer: every token read every run unless a test asks.
    SWEEP_QUIET_MAX_INTERVAL_MS: "0",
    // An in-process test chain lives and dies with the test.
    LOCAL_CHAIN_STATE: "0",
    ...overrides,
  });
}
