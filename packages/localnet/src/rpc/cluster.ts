/**
 * The cluster as a one-node chain has it, in agave's shapes: one validator (identity, one vote
 * account holding all stake, leader of every slot), one never-ending epoch, no snapshots, mainnet's
 * inflation parameters. The slot and block-height reads follow the asked commitment.
 */
import { FINALIZATION_SLOTS, rpcError } from "../node";
import {
  addressParam,
  configOf,
  ctx,
  FEATURE_SET,
  type Handler,
  type RpcContext,
  SOLANA_CORE_VERSION,
  slotParam,
  validatorOf,
  VOTE_ACCOUNT_STAKE_LAMPORTS,
  type View,
} from "./context";

/** As mainnet (and solana-test-validator without --slots-per-epoch): no warmup. */
const SLOTS_PER_EPOCH = 432_000n;
/** agave's default genesis inflation */
const INFLATION = { initial: 0.08, terminal: 0.015, taper: 0.15, foundation: 0.05, foundationTerm: 7 };
/** LiteSVM runs every feature, `stake_raise_minimum_delegation_to_1_sol` too */
const STAKE_MINIMUM_DELEGATION_LAMPORTS = 1_000_000_000n;
const GENESIS_HASH = "LocaLChain1111111111111111111111111111111111";

const epochOf = (slot: bigint) => slot / SLOTS_PER_EPOCH;

export function clusterMethods(c: RpcContext): Record<string, Handler> {
  const { node } = c;
  let leaderSchedule: { epoch: bigint; slots: number[] } | null = null;

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": SOLANA_CORE_VERSION, "feature-set": FEATURE_SET }),
    getGenesisHash: () => GENESIS_HASH,
    getIdentity: () => ({ identity: validatorOf(node).identity }),
    getSlot: (_p, v) => v.slot,
    getBlockHeight: (_p, v) => node.blockHeightAt(v.slot),
    getTransactionCount: () => node.transactionCount(),
    getMaxRetransmitSlot: () => node.getSlot(),
    getMaxShredInsertSlot: () => node.getSlot(),
    getHighestSnapshotSlot: () => {
      throw rpcError(-32008, "No snapshot");
    },
    getEpochInfo: (_p, v) => ({
      absoluteSlot: v.slot,
      blockHeight: node.blockHeightAt(v.slot),
      epoch: epochOf(v.slot),
      slotIndex: v.slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      // web3.js wants a number here (null fails its schema)
      transactionCount: node.transactionCount(),
    }),
    getEpochSchedule: () => ({
      slotsPerEpoch: SLOTS_PER_EPOCH,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      warmup: false,
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
    }),
    getLeaderSchedule: (p, v) => {
      // agave takes [slot, config] or [config]; an epoch without a schedule answers null
      const slot = typeof p[0] === "number" || typeof p[0] === "bigint" ? slotParam(p[0]) : v.slot;
      const cfg = configOf(typeof p[0] === "object" && p[0] !== null ? p[0] : p[1]) as { identity?: unknown };
      const epoch = epochOf(slot);
      if (epoch > epochOf(v.slot) + 1n) return null;
      const { identity } = validatorOf(node);
      if (cfg.identity !== undefined && addressParam(cfg.identity) !== identity) return {};
      if (leaderSchedule?.epoch !== epoch)
        leaderSchedule = { epoch, slots: Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, i) => i) };
      return { [identity]: leaderSchedule.slots };
    },
    getVoteAccounts: (p, v) => voteAccounts(c, p, v),
    getClusterNodes: () => clusterNodes(c),
    getStakeMinimumDelegation: (_p, v) => ({ context: ctx(v), value: STAKE_MINIMUM_DELEGATION_LAMPORTS }),
    getInflationGovernor: () => INFLATION,
    getInflationRate: (_p, v) => inflationRate(v),
    getInflationReward: inflationReward,
  };
}

function voteAccounts({ node }: RpcContext, p: unknown[], v: View): unknown {
  const cfg = configOf(p[0]) as { votePubkey?: unknown };
  const { identity, vote } = validatorOf(node);
  if (cfg.votePubkey !== undefined && addressParam(cfg.votePubkey) !== vote) return { current: [], delinquent: [] };
  const voted = v.at - 1n;
  const root = v.at > FINALIZATION_SLOTS + 1n ? v.at - FINALIZATION_SLOTS - 1n : 0n;
  return {
    current: [
      {
        votePubkey: vote,
        nodePubkey: identity,
        activatedStake: VOTE_ACCOUNT_STAKE_LAMPORTS,
        epochVoteAccount: true,
        commission: 0,
        lastVote: voted,
        rootSlot: root,
        epochCredits: [[epochOf(v.at), BigInt(Math.max(0, Number(root - node.firstBlockSlot()))), 0]],
      },
    ],
    delinquent: [],
  };
}

function clusterNodes(c: RpcContext): unknown {
  return [
    {
      pubkey: validatorOf(c.node).identity,
      gossip: null,
      tpu: null,
      tpuQuic: null,
      rpc: `127.0.0.1:${c.rpcPort()}`,
      pubsub: `127.0.0.1:${c.rpcPort() + 1}`,
      version: SOLANA_CORE_VERSION,
      featureSet: FEATURE_SET,
      shredVersion: 0,
    },
  ];
}

function inflationRate(v: View): unknown {
  const epoch = epochOf(v.slot);
  const years = Number(epoch * SLOTS_PER_EPOCH) / (2.5 * 60 * 60 * 24 * 365.25);
  const total = Math.max(INFLATION.initial * (1 - INFLATION.taper) ** years, INFLATION.terminal);
  const foundation = years < INFLATION.foundationTerm ? total * INFLATION.foundation : 0;
  return { total, validator: total - foundation, foundation, epoch };
}

function inflationReward(p: unknown[], v: View): unknown {
  const list = p[0];
  if (!Array.isArray(list)) throw rpcError(-32602, "Invalid params: expected an array of addresses");
  const cfg = configOf(p[1]) as { epoch?: unknown };
  const current = epochOf(v.slot);
  if (cfg.epoch !== undefined && slotParam(cfg.epoch, "epoch") > current)
    throw rpcError(-32004, `Block not available for slot ${(current + 1n) * SLOTS_PER_EPOCH}`);
  // No epoch of a local chain has ended: nothing was ever paid.
  return list.map((a) => {
    addressParam(a);
    return null;
  });
}
