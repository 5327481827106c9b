/**
 * What agave's test validator puts in genesis beside the faucet: a bootstrap validator (identity,
 * vote account, and a stake account delegated to it, active from the start), and the accounts the
 * runtime itself holds (sysvars, builtins, the SPL programs), which scans such as
 * getLargestAccounts list along with everything else.
 *
 * The validator's keys derive from the chain's program seed, so a continued chain keeps them.
 */
import { createHash } from "node:crypto";
import {
  Keypair,
  type PublicKey,
  StakeProgram,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_EPOCH_SCHEDULE_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SYSVAR_SLOT_HASHES_PUBKEY,
  SYSVAR_SLOT_HISTORY_PUBKEY,
  SYSVAR_STAKE_HISTORY_PUBKEY,
  VoteProgram,
} from "@solana/web3.js";

/** As solana-test-validator: the identity holds 500 SOL, the bootstrap stake 1,000,000 SOL. */
const VALIDATOR_IDENTITY_LAMPORTS = 500_000_000_000n;
const BOOTSTRAP_STAKE_ACCOUNT_LAMPORTS = 1_000_000_000_000_000n;
/** StakeStateV2's size */
const STAKE_ACCOUNT_BYTES = 200;
/** VoteState's size (VoteProgram.space) */
const VOTE_ACCOUNT_BYTES = 3762;
const U64_MAX = (1n << 64n) - 1n;

export interface GenesisValidator {
  identity: Keypair;
  vote: Keypair;
  stake: Keypair;
}

const derived = new WeakMap<Uint8Array, GenesisValidator>();

/** The bootstrap validator's keys of a chain with this program seed. */
export function genesisValidatorKeys(programSeed: Uint8Array): GenesisValidator {
  let keys = derived.get(programSeed);
  if (!keys) {
    const derive = (what: string) => Keypair.fromSeed(createHash("sha256").update(what).update(programSeed).digest());
    keys = {
      identity: derive("localnet validator identity"),
      vote: derive("localnet vote account"),
      stake: derive("localnet bootstrap stake account"),
    };
    derived.set(programSeed, keys);
  }
  return keys;
}

/** The stake account's rent-exempt reserve under the default rent: (128 + 200 bytes) × 3,480 × 2. */
const STAKE_RENT_RESERVE_LAMPORTS = 2_282_880n;
/** What the bootstrap stake delegates (getVoteAccounts' activatedStake): all but its rent reserve. */
export const BOOTSTRAP_DELEGATED_LAMPORTS = BOOTSTRAP_STAKE_ACCOUNT_LAMPORTS - STAKE_RENT_RESERVE_LAMPORTS;

interface GenesisWriter {
  setAccount(
    address: PublicKey,
    account: { lamports: bigint; data: Uint8Array; owner: PublicKey; executable: boolean },
  ): void;
  minimumBalanceForRentExemption(dataLen: number): bigint;
}

/** Writes the bootstrap validator's three accounts, as a fresh chain's genesis holds them. */
export function writeGenesisValidator(node: GenesisWriter, keys: GenesisValidator): void {
  const { identity, vote, stake } = keys;
  node.setAccount(identity.publicKey, {
    lamports: VALIDATOR_IDENTITY_LAMPORTS,
    data: new Uint8Array(0),
    owner: SystemProgram.programId,
    executable: false,
  });
  node.setAccount(vote.publicKey, {
    lamports: node.minimumBalanceForRentExemption(VOTE_ACCOUNT_BYTES),
    data: voteStateV3(identity.publicKey),
    owner: VoteProgram.programId,
    executable: false,
  });
  node.setAccount(stake.publicKey, {
    lamports: BOOTSTRAP_STAKE_ACCOUNT_LAMPORTS,
    data: bootstrapStake(identity.publicKey, vote.publicKey),
    owner: StakeProgram.programId,
    executable: false,
  });
}

/**
 * A vote account in VoteStateVersions::Current (V3), the layout the stake program LiteSVM carries
 * reads (it refuses V4, which LiteSVM's vote program writes): no votes, no root, the identity as
 * node, withdrawer and the voter of epoch 0, commission 0.
 */
function voteStateV3(node: PublicKey): Uint8Array {
  const data = Buffer.alloc(VOTE_ACCOUNT_BYTES);
  let at = data.writeUInt32LE(2, 0);
  at += node.toBuffer().copy(data, at);
  at += node.toBuffer().copy(data, at);
  at = data.writeUInt8(0, at); // commission
  at = data.writeBigUInt64LE(0n, at); // votes: empty
  at = data.writeUInt8(0, at); // root_slot: None
  at = data.writeBigUInt64LE(1n, at); // authorized_voters: { epoch 0: node }
  at = data.writeBigUInt64LE(0n, at);
  at += node.toBuffer().copy(data, at);
  at += 32 * 48; // prior_voters: 32 empty entries
  at = data.writeBigUInt64LE(31n, at); // their ring's index, as a fresh one has it
  data.writeUInt8(1, at); // is_empty; epoch_credits and last_timestamp stay zero
  return new Uint8Array(data);
}

/**
 * StakeStateV2::Stake, delegated since genesis: activation epoch u64::MAX is how agave's genesis
 * marks bootstrap stake, active in full from the first slot.
 */
function bootstrapStake(authority: PublicKey, voter: PublicKey): Uint8Array {
  const data = Buffer.alloc(STAKE_ACCOUNT_BYTES);
  let at = data.writeUInt32LE(2, 0);
  at = data.writeBigUInt64LE(STAKE_RENT_RESERVE_LAMPORTS, at);
  at += authority.toBuffer().copy(data, at); // staker
  at += authority.toBuffer().copy(data, at); // withdrawer
  at += 8 + 8 + 32; // lockup: none
  at += voter.toBuffer().copy(data, at);
  at = data.writeBigUInt64LE(BOOTSTRAP_DELEGATED_LAMPORTS, at);
  at = data.writeBigUInt64LE(U64_MAX, at); // activation epoch
  at = data.writeBigUInt64LE(U64_MAX, at); // deactivation epoch
  data.writeDoubleLE(0.25, at); // the deprecated warmup/cooldown rate; credits_observed and flags zero
  return new Uint8Array(data);
}

/**
 * Accounts the runtime holds from genesis on a test validator and LiteSVM alike: sysvars,
 * builtin programs and the SPL programs. The node never writes them, so they are listed here for
 * the scans that walk every account.
 */
export const RUNTIME_ACCOUNTS: readonly string[] = [
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_EPOCH_SCHEDULE_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SYSVAR_SLOT_HASHES_PUBKEY,
  SYSVAR_SLOT_HISTORY_PUBKEY,
  SYSVAR_STAKE_HISTORY_PUBKEY,
]
  .map((k) => k.toBase58())
  .concat([
    "SysvarEpochRewards1111111111111111111111111",
    "SysvarLastRestartS1ot1111111111111111111111",
    "SysvarFees111111111111111111111111111111111",
    "SysvarRecentB1ockHashes11111111111111111111",
    "11111111111111111111111111111111",
    "Vote111111111111111111111111111111111111111",
    "Stake11111111111111111111111111111111111111",
    "Config1111111111111111111111111111111111111",
    "BPFLoader1111111111111111111111111111111111",
    "BPFLoader2111111111111111111111111111111111",
    "BPFLoaderUpgradeab1e11111111111111111111111",
    "LoaderV411111111111111111111111111111111111",
    "ComputeBudget111111111111111111111111111111",
    "AddressLookupTab1e1111111111111111111111111",
    "Ed25519SigVerify111111111111111111111111111",
    "KeccakSecp256k11111111111111111111111111111",
    "Secp256r1SigVerify1111111111111111111111111",
    "ZkE1Gama1Proof11111111111111111111111111111",
    "Feature111111111111111111111111111111111111",
    "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
    "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
    "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
    "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
    "So11111111111111111111111111111111111111112",
    "9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP",
  ]);
