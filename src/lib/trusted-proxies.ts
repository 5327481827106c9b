/** The TRUSTED_PROXIES setting, read by the config (validation) and the front door (the check). */
import { AppError } from "./errors";
import { BlockList, isIP } from "node:net";

/** TRUSTED_PROXIES as a BlockList; throws on a bad entry (config turns it into one line). */
export function parseTrustedProxies(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const entry of cidrs) {
    const [address, prefixRaw] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) throw new AppError("CONFIG_INVALID", `not a CIDR: ${entry}`);
    const max = family === 6 ? 128 : 32;
    const prefix = prefixRaw === undefined ? max : /^\d{1,3}$/.test(prefixRaw) ? Number(prefixRaw) : NaN;
    if (!(prefix >= 0 && prefix <= max)) throw new AppError("CONFIG_INVALID", `not a CIDR: ${entry}`);
    list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
  }
  return list;
}
