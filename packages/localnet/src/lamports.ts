/**
 * Lamports where an API takes a JavaScript number (LiteSVM's setAccount, web3.js's
 * `SystemProgram.createAccount` and `AccountInfo`): exact only up to 2^53, so anything outside
 * 0..2^53 is refused rather than rounded. Balances on the local chain stay below it.
 */
export function lamportsAsNumber(lamports: bigint): number {
  if (lamports < 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError("a balance must be 0 to 2^53 lamports on the local chain");
  }
  return Number(lamports);
}
