/** Opens the database named in the message (waiting as long as a lock needs) and answers how it went. */
import { closeDatabase, openDatabase } from "../../db/client";

declare const self: Worker;

self.onmessage = (event: MessageEvent<string>) => {
  self.postMessage("starting");
  try {
    closeDatabase(openDatabase(event.data, { busyTimeoutMs: 120_000 }));
    self.postMessage("opened");
  } catch (error) {
    self.postMessage(`failed: ${error instanceof Error ? error.message : String(error)}`);
  }
};
