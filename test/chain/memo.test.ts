/**
 * The memo capability of the LaunchProgram port (used to anchor liability roots), on both
 * adapters: an SPL Memo v2 instruction carrying the text and naming the signer, and the memos of a
 * confirmed transaction read back with the signers they name (other programs' data ignored).
 */
import { describe, expect, test } from "bun:test";
import { Keypair, SystemProgram } from "@solana/web3.js";
import { LocalLaunchProgram } from "../../src/chain/local/adapter";
import { DEFAULT_BOND_THRESHOLD_LAMPORTS, DEFAULT_CREATOR_FEE_BPS } from "@fee-ledger/localnet";
import { LocalProgramKeys } from "@fee-ledger/localnet/program";
import { MEMO_MAX_BYTES } from "../../src/chain/memo";
import { isAppError } from "../../src/lib/errors";
import type { ConfirmedTransaction, LaunchProgram } from "../../src/chain/ports";
import { createPumpLaunchProgram } from "../../src/chain/pump/adapter";
import { mapReader } from "./support/fixtures";

const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
const adapters: [string, LaunchProgram][] = [
  ["pump", createPumpLaunchProgram(mapReader(new Map()))],
  [
    "local",
    new LocalLaunchProgram(
      new LocalProgramKeys(new Uint8Array(32).fill(9)),
      { creatorFeeBps: DEFAULT_CREATOR_FEE_BPS, bondThresholdLamports: DEFAULT_BOND_THRESHOLD_LAMPORTS },
      mapReader(new Map()),
    ),
  ],
];

function confirmed(instructions: ConfirmedTransaction["instructions"]): ConfirmedTransaction {
  return {
    signature: "s",
    slot: 1n,
    blockTime: null,
    err: null,
    accountKeys: [],
    preBalances: [],
    postBalances: [],
    instructions,
    innerInstructions: [],
    logMessages: [],
  };
}

for (const [name, program] of adapters) {
  describe(`memo capability: ${name}`, () => {
    test("builds an SPL Memo instruction signed by the given key and reads it back", () => {
      const treasury = Keypair.generate().publicKey;
      const text = `liabilities:${"ab".repeat(32)}:1052307000:2026-11-22T12:00:00.000Z`;
      const ix = program.buildMemo(text, treasury);
      expect(ix.programId.toBase58()).toBe(MEMO);
      expect(ix.keys).toEqual([{ pubkey: treasury, isSigner: true, isWritable: false }]);
      expect(Buffer.from(ix.data).toString("utf8")).toBe(text);
      const transfer = SystemProgram.transfer({ fromPubkey: treasury, toPubkey: treasury, lamports: 1 });
      const tx = confirmed([
        {
          programId: transfer.programId.toBase58(),
          accounts: [treasury.toBase58()],
          data: new Uint8Array(transfer.data),
        },
        { programId: MEMO, accounts: [treasury.toBase58()], data: new Uint8Array(ix.data) },
      ]);
      expect(program.decodeMemos(tx)).toEqual([{ text, signers: [treasury.toBase58()] }]);
    });

    test("refuses an empty memo or one too long for a transaction", () => {
      const key = Keypair.generate().publicKey;
      const refusal = (text: string) => {
        try {
          program.buildMemo(text, key);
        } catch (error) {
          return isAppError(error, "MEMO_SIZE_INVALID") ? error.message : error;
        }
        return "built";
      };
      expect(refusal("")).toBe(`a memo is 1 to ${MEMO_MAX_BYTES} bytes`);
      expect(refusal("x".repeat(MEMO_MAX_BYTES + 1))).toBe(`a memo is 1 to ${MEMO_MAX_BYTES} bytes`);
    });
  });
}
