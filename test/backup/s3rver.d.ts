/** The parts of `@20minutes/s3rver` (plain JavaScript, no types) that test/backup/stores.ts uses. */
declare module "@20minutes/s3rver" {
  import type { Server } from "node:http";

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string }[];
  }

  /** The Koa context fields the tests' middleware reads or sets. */
  interface S3rverContext {
    method: string;
    path: string;
    querystring: string;
    status: number;
    mountPath?: string;
    state: Record<string, unknown>;
  }

  type Middleware = (ctx: S3rverContext, next: () => Promise<void>) => Promise<void> | void;

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware stack, composed when run() starts listening */
    middleware: Middleware[];
    httpServer?: Server;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}

declare module "@20minutes/s3rver/lib/models/account.js" {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  /** the one account s3rver authenticates against; key pairs are process-wide */
  export const DUMMY_ACCOUNT: AWSAccount;
}
