/**
 * The one in-memory chain fake: a complete, typed `ChainServices` for tests that need the chain
 * ports but not a chain. A test gives only the methods it exercises; every other method throws,
 * naming itself, so a test that reaches further than it meant to fails loudly instead of reading
 * a made-up answer.
 *
 *   const chain = fakeChain({ reader: { getAccounts: async (a) => new Map(a.map((k) => [k, null])) } });
 *
 * Tests that need a real chain use the embedded local chain (packages/localnet) instead.
 */
import { Keypair, PublicKey } from "@solana/web3.js";
import type { ChainReader, ChainSender, LaunchProgram } from "../../src/chain/ports";
import type { ChainServices } from "../../src/chain/services";

export interface FakeChainOptions {
  reader?: Partial<ChainReader>;
  sender?: Partial<ChainSender>;
  launchProgram?: Partial<LaunchProgram>;
  treasury?: Keypair;
  creatorKeypair?: (index: number) => Keypair;
  creatorAddress?: (index: number) => PublicKey;
  rpcUrl?: string;
  /** what the test is, for the error a method it did not fake throws */
  usedBy?: string;
}

/** An address that names no real program: the fake launch program's default id. */
const FAKE_PROGRAM_ID = new PublicKey(new Uint8Array(32).fill(9)).toBase58();

export function fakeChain(options: FakeChainOptions = {}): ChainServices {
  const usedBy = options.usedBy ?? "this test";
  const unfaked = (method: string) => (): never => {
    throw new Error(`fake chain: ${method} is not used by ${usedBy}`);
  };
  const reader: ChainReader = {
    getBalances: unfaked("reader.getBalances"),
    getAccounts: unfaked("reader.getAccounts"),
    getTransaction: unfaked("reader.getTransaction"),
    getSignatureStatuses: unfaked("reader.getSignatureStatuses"),
    getBlockHeight: unfaked("reader.getBlockHeight"),
    getLatestBlockhash: unfaked("reader.getLatestBlockhash"),
    ...options.reader,
  };
  const sender: ChainSender = {
    prepare: unfaked("sender.prepare"),
    send: unfaked("sender.send"),
    outcome: unfaked("sender.outcome"),
    ...options.sender,
  };
  const launchProgram: LaunchProgram = {
    kind: "local",
    programId: FAKE_PROGRAM_ID,
    programs: [],
    vaultAddresses: unfaked("launchProgram.vaultAddresses"),
    readVaults: unfaked("launchProgram.readVaults"),
    sweepInstructions: unfaked("launchProgram.sweepInstructions"),
    decodeSweep: unfaked("launchProgram.decodeSweep"),
    verifyCreate: unfaked("launchProgram.verifyCreate"),
    buildBurnBuy: unfaked("launchProgram.buildBurnBuy"),
    buildBurn: unfaked("launchProgram.buildBurn"),
    decodeBoughtAmount: unfaked("launchProgram.decodeBoughtAmount"),
    buyRentAccounts: unfaked("launchProgram.buyRentAccounts"),
    creatorFeeBps: unfaked("launchProgram.creatorFeeBps"),
    buildMemo: unfaked("launchProgram.buildMemo"),
    decodeMemos: unfaked("launchProgram.decodeMemos"),
    buildCreate: unfaked("launchProgram.buildCreate"),
    launchOps: unfaked("launchProgram.launchOps"),
    ...options.launchProgram,
  };
  const creatorKeypair = options.creatorKeypair ?? unfaked("creatorKeypair");
  return {
    reader,
    sender,
    launchProgram,
    treasury: options.treasury ?? Keypair.generate(),
    creatorKeypair,
    creatorAddress: options.creatorAddress ?? ((index) => creatorKeypair(index).publicKey),
    ...(options.rpcUrl === undefined ? {} : { rpcUrl: options.rpcUrl }),
  };
}
