import { randomUUID, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Notifier } from './notifier';
import { createDispatcher } from './server';
import { RegistryStorage } from './storage';

/**
 * An in-process model of Docker Distribution 2.8's HTTP API with token auth, for machines without
 * the `docker-registry` binary. It sits behind the same front door and answers the same clients
 * and tests: same routes, auth challenges, error envelopes and codes (including 2.8's odd ones),
 * upload protocol, tag and delete semantics, notifications and garbage collection. Where it knowingly
 * differs from 2.8 is said where that code is (tag pagination, notification backoff).
 */

export interface RegistrySimulatorOptions {
  /** Blobs, uploads and the index live here; a new simulator over the same directory finds them again. */
  dataDir: string;
  /** The token endpoint named by 401 challenges. */
  realm: string;
  /** Tokens' `aud`. */
  service: string;
  /** Tokens' `iss`. */
  issuer: string;
  /** Verifies tokens' RS256 signatures. */
  publicKey: KeyObject;
  /** Where events are POSTed, with this Authorization header. */
  notifications: { url: string; authorization: string };
}

export interface RegistrySimulator {
  /** `http://127.0.0.1:<port>`, the upstream the front door proxies to. */
  url: string;
  /** Deletes every blob no manifest of any repository references, as `docker-registry garbage-collect`. */
  collectGarbage(): Promise<void>;
  /** Stops serving and stops delivering (queued events are dropped, as when Distribution stops). */
  close(): Promise<void>;
}

export async function startRegistrySimulator(options: RegistrySimulatorOptions): Promise<RegistrySimulator> {
  const storage = await RegistryStorage.open(options.dataDir);
  const notifier = new Notifier({ url: options.notifications.url, authorization: options.notifications.authorization });
  const source = { addr: '', instanceID: randomUUID() };
  const server = createServer(
    createDispatcher({
      auth: { realm: options.realm, service: options.service, issuer: options.issuer, publicKey: options.publicKey },
      storage,
      source,
      publish: (event) => notifier.publish(event),
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Distribution names itself by host name and configured port in every event's `source`.
  source.addr = `${hostname()}:${port}`;
  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    collectGarbage: () => storage.collectGarbage(),
    close() {
      closing ??= (async () => {
        await notifier.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await storage.flush();
      })();
      return closing;
    },
  };
}
