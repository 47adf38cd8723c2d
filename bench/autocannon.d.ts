// autocannon ships no type declarations; this covers the part of its programmatic API the bench uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request extends RequestParams {
      /** Called before every request; returns the request to send (a falsy value skips it). */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      requests?: Request[];
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
      on(event: 'reqError', listener: (error: Error) => void): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options, callback?: (err: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  export = autocannon;
}
