export {
  getAutopayMinLamports,
  getClaimsPaused,
  getLaunchesPaused,
  getMinClaimLamports,
  getPlatformTokenMint,
  PLATFORM_TOKEN_MINT_KEY,
  setAutopayMinLamports,
  setClaimsPaused,
  setLastReconciliation,
  setLaunchesPaused,
  setMinClaimLamports,
  settingsInForce,
} from "./service";
