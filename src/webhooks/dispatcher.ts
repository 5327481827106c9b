/**
 * Sends the webhook outbox. Woken by the feed notifier when events commit, and by a timer for
 * retries that come due. A delivery is marked delivered only after a 2xx, in its own transaction,
 * so a crash before that re-sends it after the restart under the same webhook-id and body (at
 * least once), and never after it was recorded as acknowledged.
 *
 * One dispatcher per database: it runs in the process that runs the jobs (main.ts, JOBS on).
 */
import type { Db } from "../../db/client";
import { feedNotifier, isoMicros } from "../ledger";
import { isAppError } from "../lib/errors";
import { log } from "../lib/log";
import { pinnedRequest, type Resolve, resolveDestination, WEBHOOK_DESTINATION_CODES } from "./destination";
import { webhookSecret } from "./key";
import { webhookHeaders } from "./signing";
import { dropDelivery, dueDeliveries, recordAttempt, renderPayload, startDelivery, type DueDelivery } from "./service";

export interface DispatcherOptions {
  /** the key the endpoints' secrets derive from (src/webhooks/key.ts) */
  signingKey: Buffer;
  maxInFlightPerEndpoint: number;
  timeoutMs: number;
  /** first retry delay; each further one doubles, up to retryDelayMaxMs */
  retryBaseMs: number;
  retryDelayMaxMs: number;
  /** a delivery is retried this long after its first attempt, then failed */
  retryWindowMs: number;
  /** an endpoint failing this long is disabled */
  disableAfterMs: number;
  /** how often due retries are looked for when nothing wakes the dispatcher */
  tickMs: number;
  allowPrivate: boolean;
  now: () => number;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** how destination names are resolved (the system resolver; tests stand one in) */
  resolve?: Resolve;
}

const DAY_MS = 24 * 3_600_000;

const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, "signingKey"> = {
  maxInFlightPerEndpoint: 4,
  timeoutMs: 10_000,
  retryBaseMs: 5_000,
  retryDelayMaxMs: 3_600_000,
  retryWindowMs: DAY_MS,
  disableAfterMs: DAY_MS,
  tickMs: 1_000,
  allowPrivate: false,
  now: Date.now,
  fetch: (input, init) => fetch(input, init),
};

const BATCH = 200;
/** a receiver's own words can be long or hostile: keep a short, single-line excerpt */
const MAX_ERROR_CHARS = 200;

export class WebhookDispatcher {
  readonly options: DispatcherOptions;
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<number>();
  private readonly pendingSends = new Set<Promise<void>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private scanning = false;
  private rescan = false;
  private stopped = true;

  constructor(
    private readonly db: Db,
    options: Partial<DispatcherOptions> & Pick<DispatcherOptions, "signingKey">,
  ) {
    this.options = { ...DEFAULT_DISPATCHER_OPTIONS, ...options };
  }

  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.unsubscribe = feedNotifier(this.db).subscribe(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.options.tickMs);
    this.wake();
    return this;
  }

  /** Stops taking new deliveries and waits for the ones in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.pendingSends]);
  }

  /** Looks for due deliveries now (also after a replay or a new endpoint). */
  wake(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    try {
      do {
        this.rescan = false;
        this.scan();
      } while (this.rescan && !this.stopped);
    } catch (error) {
      log.error("webhook dispatch failed", { error });
    } finally {
      this.scanning = false;
    }
  }

  private scan(): void {
    const due = dueDeliveries(this.db, this.options.now(), BATCH);
    for (const delivery of due) {
      if (this.sending.has(delivery.id)) continue;
      const busy = this.inFlight.get(delivery.webhookId) ?? 0;
      if (busy >= this.options.maxInFlightPerEndpoint) continue;
      this.inFlight.set(delivery.webhookId, busy + 1);
      this.sending.add(delivery.id);
      const send = this.send(delivery).finally(() => {
        this.sending.delete(delivery.id);
        const left = (this.inFlight.get(delivery.webhookId) ?? 1) - 1;
        if (left <= 0) this.inFlight.delete(delivery.webhookId);
        else this.inFlight.set(delivery.webhookId, left);
        this.pendingSends.delete(send);
        // A slot is free: the endpoint's next delivery need not wait for the tick.
        queueMicrotask(() => this.wake());
      });
      this.pendingSends.add(send);
    }
  }

  private async send(delivery: DueDelivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const startedMs = this.options.now();
    let payload = delivery.payload;
    if (payload === null) {
      payload = renderPayload(this.db, delivery.atUs);
      if (payload === null) {
        dropDelivery(this.db, delivery.id, attempt, startedMs);
        return;
      }
      startDelivery(this.db, delivery.id, payload, startedMs);
    }
    const firstAttemptAtMs = delivery.firstAttemptAtMs ?? startedMs;
    let ok = false;
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const url = new URL(delivery.url);
      // Connect to the address just checked: resolving the name again could answer another one.
      const address = await resolveDestination(url, this.options.allowPrivate, this.options.resolve);
      const target = pinnedRequest(url, address);
      const id = webhookMessageId(delivery.atUs);
      const timestampSec = Math.floor(this.options.now() / 1000);
      const response = await this.options.fetch(target.url, {
        method: "POST",
        headers: {
          ...webhookHeaders(webhookSecret(this.options.signingKey, delivery.webhookId), id, timestampSec, payload),
          "user-agent": "creator-fee-ledger-webhooks/1",
          ...target.headers,
        },
        ...(target.tls ? { tls: target.tls } : {}),
        body: payload,
        // A redirect is a non-2xx answer: following it could lead anywhere, private ranges included.
        redirect: "manual",
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      httpStatus = response.status;
      ok = response.status >= 200 && response.status < 300;
      if (!ok) error = `The endpoint answered ${response.status}.`;
      await response.body?.cancel().catch(() => {});
    } catch (e) {
      error = describeFailure(e, this.options.timeoutMs);
    }
    const nowMs = this.options.now();
    let nextAttemptAtMs: number | null = null;
    if (!ok) {
      const delay = Math.min(this.options.retryBaseMs * 2 ** Math.min(attempt - 1, 30), this.options.retryDelayMaxMs);
      nextAttemptAtMs = nowMs + delay <= firstAttemptAtMs + this.options.retryWindowMs ? nowMs + delay : null;
    }
    recordAttempt(this.db, {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      attempt,
      ok,
      httpStatus,
      error,
      nowMs,
      nextAttemptAtMs,
      disableAfterMs: this.options.disableAfterMs,
    });
  }
}

/**
 * The event's id, the one string every surface shares: the SSE `id`, `/api/ledger`'s cursor (the
 * event's time with microseconds) and the deliveries route's `eventId`. Every attempt and replay
 * of one event carries it, so a receiver dedupes by it and matches it to the stream directly.
 */
function webhookMessageId(atUs: number): string {
  return isoMicros(atUs);
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (isAppError(error, ...WEBHOOK_DESTINATION_CODES)) return error.message;
  const name = fieldOf(error, "name");
  if (name === "TimeoutError" || name === "AbortError") return `No answer within ${timeoutMs / 1000} s.`;
  // Connection errors: a short class of failure, never the URL (it can carry a token).
  const code = fieldOf(error, "code");
  return (code ? `Could not connect (${String(code)}).` : "Could not connect.").slice(0, MAX_ERROR_CHARS);
}

/** A field of whatever fetch threw (a DOMException, a system error, anything). */
function fieldOf(error: unknown, field: "name" | "code"): unknown {
  if (typeof error !== "object" || error === null || !(field in error)) return undefined;
  return (error as Record<typeof field, unknown>)[field];
}
