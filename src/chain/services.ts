/**
 * The chain as the rest of the service holds it: the ports plus the keys the service signs with.
 * Built by main.ts from configuration (local chain or pump over RPC); null where a deployment or a
 * test runs without a chain, and every route or job that needs it then answers 503.
 */
import type { Keypair, PublicKey } from "@solana/web3.js";
import type { ChainReader, ChainSender, LaunchProgram } from "./ports";

export interface ChainServices {
  reader: ChainReader;
  sender: ChainSender;
  launchProgram: LaunchProgram;
  treasury: Keypair;
  /** the creator key of the token with this index (DESIGN §4); derived on demand, never stored */
  creatorKeypair(index: number): Keypair;
  creatorAddress(index: number): PublicKey;
  /** the JSON-RPC endpoint behind the reader (the local node's actual port, or RPC_URL); never shown to clients */
  rpcUrl?: string;
}
