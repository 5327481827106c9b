/**
 * `jsonParsed` account data where agave has a parser and the local chain holds such accounts:
 * address lookup tables (what kit's `fetchAddressesForLookupTables` asks for). Other accounts
 * have none here; callers fall back to base64, as agave does for accounts it cannot parse.
 */
import { AddressLookupTableAccount, AddressLookupTableProgram, type PublicKey } from "@solana/web3.js";

export interface ParsedAccountData {
  program: string;
  parsed: { type: string; info: Record<string, unknown> };
  space: number;
}

export function parsedAccountData(owner: PublicKey, data: Uint8Array): ParsedAccountData | null {
  if (!owner.equals(AddressLookupTableProgram.programId)) return null;
  try {
    const state = AddressLookupTableAccount.deserialize(data);
    return {
      program: "address-lookup-table",
      // u64 fields as strings, as agave's parser writes them
      parsed: {
        type: "lookupTable",
        info: {
          deactivationSlot: state.deactivationSlot.toString(),
          lastExtendedSlot: state.lastExtendedSlot.toString(),
          lastExtendedSlotStartIndex: state.lastExtendedSlotStartIndex,
          ...(state.authority ? { authority: state.authority.toBase58() } : {}),
          addresses: state.addresses.map((a) => a.toBase58()),
        },
      },
      space: data.length,
    };
  } catch {
    // An uninitialized or closed table: no parse, base64 instead.
    return null;
  }
}
