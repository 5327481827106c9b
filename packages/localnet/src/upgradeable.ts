/**
 * The local launch program held as agave holds an upgradeable program, so a client can watch it
 * being upgraded as it watches pump's programs on mainnet: a program account owned by
 * BPFLoaderUpgradeable (executable, `UpgradeableLoaderState::Program { programdata_address }`)
 * pointing to its ProgramData account (`ProgramData { slot, upgrade_authority_address }` and the
 * ELF). `slot` is the slot of the last deploy or upgrade: agave's Upgrade writes the clock's slot.
 *
 * The local program's ops run in the node, not in the ELF (the memo program's ELF stands in, so
 * LiteSVM can load the account as agave would); only the accounts are modelled. Pure address
 * derivations are importable without the node (`@fee-ledger/localnet/upgradeable`).
 */
import { PublicKey } from "@solana/web3.js";

export const BPF_LOADER_UPGRADEABLE_ID = new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111");
const MEMO_PROGRAM = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

/** UpgradeableLoaderState tags (bincode u32 LE). */
const PROGRAM_TAG = 2;
const PROGRAM_DATA_TAG = 3;
/** tag, slot, Option<Pubkey> (1 + 32): agave's ProgramData metadata before the ELF */
export const PROGRAM_DATA_METADATA_BYTES = 4 + 8 + 1 + 32;
const PROGRAM_ACCOUNT_BYTES = 4 + 32;

/** The local launch program's account: derived from its event authority, like every key of it. */
export function launchProgramAddress(eventAuthority: PublicKey | string): PublicKey {
  const authority = typeof eventAuthority === "string" ? new PublicKey(eventAuthority) : eventAuthority;
  return PublicKey.findProgramAddressSync([new TextEncoder().encode("launch-program")], authority)[0];
}

/** Where BPFLoaderUpgradeable keeps a program's ProgramData: the PDA of the program's address. */
export function programDataAddress(program: PublicKey | string): PublicKey {
  const address = typeof program === "string" ? new PublicKey(program) : program;
  return PublicKey.findProgramAddressSync([address.toBytes()], BPF_LOADER_UPGRADEABLE_ID)[0];
}

/** What the node offers this module: its accounts, slot and rent. */
export interface UpgradeableNode {
  getSlot(): bigint;
  getAccount(address: PublicKey): { data: Uint8Array } | null;
  setAccount(
    address: PublicKey,
    account: { lamports: bigint; data: Uint8Array; owner: PublicKey; executable: boolean },
  ): void;
  minimumBalanceForRentExemption(dataLen: number): bigint;
}

function programDataBytes(slot: bigint, authority: PublicKey, elf: Uint8Array): Uint8Array {
  const data = new Uint8Array(PROGRAM_DATA_METADATA_BYTES + elf.length);
  const view = new DataView(data.buffer);
  view.setUint32(0, PROGRAM_DATA_TAG, true);
  view.setBigUint64(4, slot, true);
  data[12] = 1; // Some(upgrade authority)
  data.set(authority.toBytes(), 13);
  data.set(elf, PROGRAM_DATA_METADATA_BYTES);
  return data;
}

/**
 * Deploys `program` as an upgradeable program at the current slot, unless it is deployed already
 * (a chain continued from its saved state keeps its program and the slot of its last upgrade).
 */
export function deployUpgradeable(node: UpgradeableNode, program: PublicKey, authority: PublicKey): void {
  if (node.getAccount(program)) return;
  const elf = node.getAccount(MEMO_PROGRAM)?.data;
  if (!elf) throw new Error("the memo program is missing: no ELF to deploy");
  // ProgramData first: the program account is loaded from it as it is written.
  for (const { address, account } of upgradeableProgramAccounts(program, {
    elf,
    authority,
    slot: node.getSlot(),
    rentExemptLamports: (dataLen) => node.minimumBalanceForRentExemption(dataLen),
  })) {
    node.setAccount(address, account);
  }
}

/**
 * The two accounts of an upgradeable program: its ProgramData (`slot`, `Some(authority)`, the
 * ELF), then the program account pointing to it, each holding the rent-exempt minimum.
 */
export function upgradeableProgramAccounts(
  program: PublicKey,
  deploy: { elf: Uint8Array; authority: PublicKey; slot: bigint; rentExemptLamports: (dataLen: number) => bigint },
): { address: PublicKey; account: { lamports: bigint; data: Uint8Array; owner: PublicKey; executable: boolean } }[] {
  const programData = programDataAddress(program);
  const data = programDataBytes(deploy.slot, deploy.authority, deploy.elf);
  const account = new Uint8Array(PROGRAM_ACCOUNT_BYTES);
  new DataView(account.buffer).setUint32(0, PROGRAM_TAG, true);
  account.set(programData.toBytes(), 4);
  const owner = BPF_LOADER_UPGRADEABLE_ID;
  return [
    {
      address: programData,
      account: { lamports: deploy.rentExemptLamports(data.length), data, owner, executable: false },
    },
    {
      address: program,
      account: { lamports: deploy.rentExemptLamports(account.length), data: account, owner, executable: true },
    },
  ];
}

/** An upgrade of `program` as agave's Upgrade leaves it: ProgramData's slot is the current slot. */
export function upgradeProgram(node: UpgradeableNode, program: PublicKey): bigint {
  const address = programDataAddress(program);
  const current = node.getAccount(address);
  if (!current || current.data.length < PROGRAM_DATA_METADATA_BYTES) throw new Error("program is not deployed");
  const data = Uint8Array.from(current.data);
  const slot = node.getSlot();
  new DataView(data.buffer).setBigUint64(4, slot, true);
  node.setAccount(address, {
    lamports: node.minimumBalanceForRentExemption(data.length),
    data,
    owner: BPF_LOADER_UPGRADEABLE_ID,
    executable: false,
  });
  return slot;
}
