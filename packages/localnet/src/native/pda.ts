/**
 * `PublicKey.findProgramAddressSync`, remembered: every emulated instruction derives and checks
 * several PDAs (the curve, its vaults, the event authority), and each derivation is up to 255
 * SHA-256 hashes and curve checks in JavaScript, which cost more than the rest of a trade.
 * Bounded, cleared when full.
 */
import { PublicKey } from "@solana/web3.js";

const found = new Map<string, [PublicKey, number]>();
const FOUND_MAX = 50_000;

export function findProgramAddress(seeds: readonly (Uint8Array | Buffer)[], programId: PublicKey): [PublicKey, number] {
  const key = `${programId.toBase58()}:${seeds.map((s) => Buffer.from(s).toString("hex")).join(":")}`;
  let result = found.get(key);
  if (!result) {
    result = PublicKey.findProgramAddressSync(
      seeds.map((s) => Buffer.from(s)),
      programId,
    );
    if (found.size >= FOUND_MAX) found.clear();
    found.set(key, result);
  }
  return result;
}
