// @20minutes/s3rver ships no types; this is the part the storage tests use.
declare module '@20minutes/s3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }

  /** A Koa application; `middleware` is Koa's list, composed when `run()` listens. */
  class S3rver {
    constructor(options?: S3rverOptions);
    middleware: Array<(ctx: any, next: () => Promise<void>) => Promise<void> | void>;
    httpServer?: Server;
    run(): Promise<{ address: string; port: number; family: string }>;
    close(): Promise<void>;
  }

  export default S3rver;
}
