import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import type { Server } from '../server/domains/servers/schema';
import type { SshKey } from '../server/domains/sshKeys/schema';

export interface OpenSshPublicKey {
  line: string;
  fingerprint: string;
}

function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A fresh ed25519 public key as an OpenSSH `.pub` line, with the fingerprint `ssh-keygen -lf` prints for it. */
export function newEd25519PublicKey(comment: string): OpenSshPublicKey {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { line: `ssh-ed25519 ${blob.toString('base64')} ${comment}`, fingerprint };
}

/**
 * Writes through the REST API with the page's session cookie. The server checks the Origin of
 * cookie-authenticated writes, which a request made outside the page does not send by itself.
 */
export async function apiWrite(page: Page, method: 'post' | 'delete', path: string, data?: unknown): Promise<unknown> {
  const origin = new URL(page.url()).origin;
  const res = await page.request[method](path, { data, headers: { Origin: origin } });
  expect(res.ok(), `${method.toUpperCase()} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  if (res.status() === 204) return null;
  return ((await res.json()) as { data: unknown }).data;
}

/** Saves the processor's test card as the project's default card (the signed-in user holds billing). */
export async function addTestCard(page: Page, projectId: string): Promise<void> {
  await apiWrite(page, 'post', `/v1/projects/${projectId}/billing/payment-methods`, {
    cardNumber: '4242 4242 4242 4242',
    expMonth: 12,
    expYear: 2030,
    cvc: '123',
  });
}

export async function addSshKeyViaApi(page: Page, projectId: string, name: string, publicKey: string): Promise<string> {
  const key = (await apiWrite(page, 'post', `/v1/projects/${projectId}/ssh-keys`, { name, publicKey })) as SshKey;
  return key.id;
}

export async function createServerViaApi(
  page: Page,
  projectId: string,
  server: { name: string; region: string; slug: string; sshKeyIds: string[] },
): Promise<void> {
  await apiWrite(page, 'post', `/v1/projects/${projectId}/servers`, { ...server, provider: 'infra' });
}

export async function serverActionViaApi(page: Page, projectId: string, serverId: string, action: string): Promise<void> {
  await apiWrite(page, 'post', `/v1/projects/${projectId}/servers/${serverId}/actions`, { action });
}

export async function listServersViaApi(page: Page, projectId: string): Promise<Server[]> {
  const res = await page.request.get(`/v1/projects/${projectId}/servers`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: Server[] }).data;
}

/** Reads the servers until the named one has the status; reads are what settle a provisioning server. */
export async function waitForServerStatus(page: Page, projectId: string, name: string, status: Server['status']): Promise<Server> {
  let found: Server | undefined;
  await expect(async () => {
    found = (await listServersViaApi(page, projectId)).find((s) => s.name === name);
    expect(found?.status).toBe(status);
  }).toPass({ timeout: 30_000, intervals: [500] });
  return found!;
}
