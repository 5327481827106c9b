/**
 * The Origin check of SPEC's Authentication table: a state-changing request whose Origin names
 * another site is refused with 403. A request without Origin (a script, curl) is let through
 * unless the browser's Sec-Fetch-Site says it came from another site; `Origin: null` (sandboxed
 * frames, some redirects) names no site of ours and is refused.
 */
import type { Config } from "../config";
import { isOwnOrigin } from "../http/own-origin";
import { AppError } from "../lib/errors";

const refused = () => new AppError("CROSS_SITE_REFUSED");

export function assertSameSite(request: Request, config: Config): void {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (!isOwnOrigin(origin, config)) throw refused();
    return;
  }
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site" || fetchSite === "same-site") throw refused();
}
