/**
 * What the indexer reports about itself, for `/api/cron/health` (as an additive `indexer` field)
 * and the logs. The state lives in the process that runs the indexer, so the registry is keyed by
 * the service's context: the health route of that same service finds it, nothing else does.
 */
type IndexerMode = "grpc" | "poll" | "standby" | "stopped";

export interface IndexerState {
  /** grpc: streaming; poll: the RPC fallback; standby: another process holds the lease */
  mode: IndexerMode;
  /** grpc: a stream is open and answered; poll: the last poll reached the node */
  connected: boolean;
  /** highest confirmed slot whose updates have been applied */
  lastSlot: number | null;
  /** newest slot the source has shown */
  headSlot: number | null;
  lagSlots: number | null;
  lastUpdateAt: string | null;
  reconnects: number;
  lastError: string | null;
  tokens: number;
  /** accounts the stream watches (filters); absent before the indexer reports */
  accounts?: number;
  /** stream bytes received since the indexer started (protobuf payloads) */
  receivedBytes?: number;
}

const registry = new WeakMap<object, () => IndexerState>();

export function registerIndexerState(owner: object, state: () => IndexerState): () => void {
  registry.set(owner, state);
  return () => {
    if (registry.get(owner) === state) registry.delete(owner);
  };
}

/** null when no indexer was started for this service (tests, or a deployment without a chain). */
export function indexerStateOf(owner: object): IndexerState | null {
  return registry.get(owner)?.() ?? null;
}
