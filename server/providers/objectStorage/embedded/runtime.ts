import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import S3rver from 's3rver';
import { getConfig } from '../../../platform/config';
import { getLogger } from '../../../platform/logger';
import { createGateway } from './gateway';
import { TrafficMeter } from './metering';

const LOOPBACK = '127.0.0.1';
const METER_FLUSH_MS = 5000;

export interface EmbeddedObjectStorage {
  /** s3rver's own address: reached only by this process and the gateway, never given out. */
  internalUrl: string;
  /** What clients are told to use. */
  publicUrl: string;
  meter: TrafficMeter;
}

interface Running extends EmbeddedObjectStorage {
  s3rver: S3rver;
  gateway: Server | null;
}

/** Shared through globalThis: the Next bundle and the server load this module separately. */
const holder = globalThis as unknown as { __embeddedObjectStorage?: Promise<Running>; __embeddedObjectStorageUrl?: string };

/** The URL clients are told: the running gateway's, else the one configuration fixes. */
export function embeddedPublicUrl(): string {
  if (holder.__embeddedObjectStorageUrl) return holder.__embeddedObjectStorageUrl;
  const config = getConfig();
  return publicUrlOf(config.OBJECT_STORAGE_ENDPOINT_HOST, config.OBJECT_STORAGE_ENDPOINT_PORT);
}

/**
 * Starts s3rver on a loopback port of its own and the gateway customers reach in front of it; a
 * second call returns the same endpoint. When another process of this app already serves the
 * configured port, this one keeps only s3rver over the same files, for the platform's own calls.
 */
export function startEmbeddedObjectStorage(): Promise<EmbeddedObjectStorage> {
  holder.__embeddedObjectStorage ??= start().catch((err: unknown) => {
    holder.__embeddedObjectStorage = undefined;
    throw err;
  });
  return holder.__embeddedObjectStorage;
}

export async function stopEmbeddedObjectStorage(): Promise<void> {
  const running = holder.__embeddedObjectStorage;
  holder.__embeddedObjectStorage = undefined;
  holder.__embeddedObjectStorageUrl = undefined;
  if (!running) return;
  const { s3rver, gateway, meter } = await running;
  if (gateway) {
    gateway.closeAllConnections();
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
  }
  await meter.stop();
  await s3rver.close();
}

async function start(): Promise<Running> {
  const config = getConfig();
  const root = path.resolve(config.OBJECT_STORAGE_DATA_DIR ?? path.join(config.DATA_DIR, 'object-storage'));
  const directory = path.join(root, 'buckets');
  const spoolDir = path.join(root, 'incoming');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await mkdir(spoolDir, { recursive: true, mode: 0o700 });
  const s3rver = new S3rver({ address: LOOPBACK, port: 0, directory, silent: true });
  const internal = await s3rver.run();
  const meter = new TrafficMeter(METER_FLUSH_MS);
  const gateway = createGateway({ upstream: { host: LOOPBACK, port: internal.port }, meter, spoolDir });
  const host = config.OBJECT_STORAGE_ENDPOINT_HOST;
  const listening = await new Promise<AddressInfo | null>((resolve, reject) => {
    gateway.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    gateway.listen(config.OBJECT_STORAGE_ENDPOINT_PORT, host, () => resolve(gateway.address() as AddressInfo));
  }).catch(async (err: unknown) => {
    await s3rver.close();
    throw err;
  });
  const port = listening?.port ?? config.OBJECT_STORAGE_ENDPOINT_PORT;
  const publicUrl = publicUrlOf(host, port);
  holder.__embeddedObjectStorageUrl = publicUrl;
  if (listening) {
    meter.start();
    getLogger().info({ url: publicUrl }, 'object storage endpoint listening (development: s3rver behind our gateway)');
  } else {
    getLogger().warn({ port }, 'object storage endpoint: the port is taken, presumably by another process of this app; this one serves no customers');
  }
  return { s3rver, gateway: listening ? gateway : null, meter, internalUrl: `http://${LOOPBACK}:${internal.port}`, publicUrl };
}

function publicUrlOf(host: string, port: number): string {
  const configured = getConfig().OBJECT_STORAGE_PUBLIC_URL;
  return (configured ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
}
