export {
  handlesOf,
  payoutWalletOf,
  pinHandleAtLaunch,
  pinnedIdOf,
  setRouting,
  signInWithProfile,
} from "./identity";
export type { IdpProfile, Routing } from "./identity";
