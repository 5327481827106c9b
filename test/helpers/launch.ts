/**
 * One confirmed launch with placeholder addresses, written through the launch service, for tests
 * that need a token in the books and no chain behind it.
 */
import type { Db } from "../../db/client";
import type { LocalChain } from "@fee-ledger/localnet";
import type { LaunchProgram } from "../../src/chain/ports";
import { type ConfirmedLaunch, type LaunchRecipientInput, recordConfirmedLaunch } from "../../src/tokens/launch-record";

/** The placeholder token's mint (wrapped SOL's address: a valid base58 address, never launched here). */
export const FIXTURE_MINT = "So11111111111111111111111111111111111111112";

export function recordFixtureLaunch(
  db: Db,
  launch: Partial<ConfirmedLaunch> = {},
  nowMs = Date.now(),
): { tokenId: number; created: boolean } {
  return recordConfirmedLaunch(
    db,
    {
      mint: FIXTURE_MINT,
      name: "Fixture",
      symbol: "FIX",
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      metadataUri: "local://m",
      imageUri: null,
      creatorIndex: 1,
      creator: "11111111111111111111111111111112",
      creatorVault: "11111111111111111111111111111113",
      deployer: "D",
      launchSignature: "L",
      launchedAtMs: nowMs,
      platformBps: 0,
      recipients: [{ handle: "alice", bps: 10_000 }],
      ...launch,
    },
    nowMs,
  );
}

/**
 * Token number `creatorIndex` created on the local chain (by its launch helper, no launch flow)
 * and its confirmed launch recorded as the launch flow records it: "Token N", "TN", the creator
 * address of that index and its curve vault.
 */
export function launchOnLocalChain(
  db: Db,
  chain: { local: LocalChain; launchProgram: LaunchProgram },
  token: { creatorIndex: number; creator: string; platformBps: number; recipients: readonly LaunchRecipientInput[] },
): { mint: string; tokenId: number; creator: string } {
  const { creatorIndex, creator } = token;
  const created = chain.local.launch.createToken({
    name: `Token ${creatorIndex}`,
    symbol: `T${creatorIndex}`,
    uri: `local://meta/${creatorIndex}`,
    creator,
  });
  if (created.err) throw new Error(`the local chain refused the launch: ${JSON.stringify(created.err)}`);
  const vaults = chain.launchProgram.vaultAddresses({ mint: created.mint, creator });
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint: created.mint,
      name: `Token ${creatorIndex}`,
      symbol: `T${creatorIndex}`,
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      metadataUri: `local://meta/${creatorIndex}`,
      imageUri: null,
      creatorIndex,
      creator,
      creatorVault: vaults.curveVault,
      poolVault: vaults.poolVault,
      deployer: chain.local.launch.deployer.publicKey.toBase58(),
      launchSignature: created.signature,
      launchedAtMs: Date.now(),
      platformBps: token.platformBps,
      recipients: token.recipients,
    },
    Date.now(),
  );
  return { mint: created.mint, tokenId, creator };
}

/**
 * Token number `creatorIndex` created on the local chain's emulated pump program (pump's
 * `create_v2`, built by pump's SDK; no launch flow) and recorded as the launch flow records it.
 */
export async function launchOnPumpChain(
  db: Db,
  chain: { local: LocalChain; launchProgram: LaunchProgram },
  token: { creatorIndex: number; creator: string; platformBps: number; recipients: readonly LaunchRecipientInput[] },
): Promise<{ mint: string; tokenId: number; creator: string }> {
  const { creatorIndex, creator } = token;
  const pump = chain.local.pump;
  if (!pump) throw new Error("the local chain hosts no pump programs");
  const uri = `local://meta/${creatorIndex}`;
  const created = await pump.createToken({ name: `Token ${creatorIndex}`, symbol: `T${creatorIndex}`, uri, creator });
  if (created.err) throw new Error(`the local chain refused the launch: ${JSON.stringify(created.err)}`);
  const vaults = chain.launchProgram.vaultAddresses({ mint: created.mint, creator });
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint: created.mint,
      name: `Token ${creatorIndex}`,
      symbol: `T${creatorIndex}`,
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      metadataUri: uri,
      imageUri: null,
      creatorIndex,
      creator,
      creatorVault: vaults.curveVault,
      poolVault: vaults.poolVault,
      deployer: pump.deployer.publicKey.toBase58(),
      launchSignature: created.signature,
      launchedAtMs: Date.now(),
      platformBps: token.platformBps,
      recipients: token.recipients,
    },
    Date.now(),
  );
  return { mint: created.mint, tokenId, creator };
}
