export {
  handlesOf,
  payoutWalletOf,
  pinHandleAtLaunch,
  pinnedIdOf,
  recordSignIn,
  setRouting,
  signInWithProfile,
} from "./identity";
export type { IdpProfile, Routing } from "./identity";
