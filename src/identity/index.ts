export {
  HandleHeldElsewhereError,
  HandleOwnerUnknownError,
  handlesOf,
  pinHandleAtLaunch,
  pinnedIdOf,
  setRouting,
  signInWithProfile,
} from "./identity";
export type { IdpProfile, Routing } from "./identity";
