import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { libtrustKeyId } from './jwt';

/** The key registry tokens are signed with, and the certificate the registry trusts it through. */
export interface RegistrySigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Self-signed; Distribution's `rootcertbundle`. */
  certificatePem: string;
  certificatePath: string;
  /** The libtrust key id tokens name in their `kid` header. */
  keyId: string;
}

const KEY_FILE = 'token-signing.key';
const CERTIFICATE_FILE = 'token-signing.crt';
const CERTIFICATE_YEARS = 20;
/** A certificate this close to its end is made again (same key, so tokens and the key id stay valid). */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const SIGNING_ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/**
 * The signing key under `<dataDir>/keys/`, made on first use and reused after: a new key would
 * invalidate every token handed out and need the registry restarted with a new certificate.
 * Several processes of the app may start at once over the same directory, so each file is created
 * under a temporary name and linked into place, and the loser of that race reads the winner's file.
 */
export async function loadSigningKey(dataDir: string, commonName: string): Promise<RegistrySigningKey> {
  const dir = path.join(dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const keyPath = path.join(dir, KEY_FILE);
  const certificatePath = path.join(dir, CERTIFICATE_FILE);

  let keyPem = await readIfExists(keyPath);
  if (keyPem === null) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keyPem = await createExclusively(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  }
  const privateKey = createPrivateKey(keyPem);
  const publicKey = createPublicKey(privateKey);

  let certificatePem = await readIfExists(certificatePath);
  if (certificatePem === null || !certifies(certificatePem, publicKey)) {
    const fresh = await selfSignedCertificate(privateKey, publicKey, commonName);
    // A stale certificate is replaced, not raced for: every process would write the same key's certificate.
    if (certificatePem === null) certificatePem = await createExclusively(certificatePath, fresh, 0o644);
    else {
      await writeFile(certificatePath, fresh, { mode: 0o644 });
      certificatePem = fresh;
    }
  }
  return { privateKey, publicKey, certificatePem, certificatePath, keyId: libtrustKeyId(publicKey) };
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Writes `content` at `file` unless another process got there first; returns what the file holds. */
async function createExclusively(file: string, content: string, mode: number): Promise<string> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, content, { mode });
  try {
    await link(temporary, file);
    return content;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFile(file, 'utf8');
  } finally {
    await rm(temporary, { force: true });
  }
}

/** True when the certificate is for this key and not about to expire. */
function certifies(certificatePem: string, publicKey: KeyObject): boolean {
  try {
    const certificate = new X509Certificate(certificatePem);
    const der = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });
    return der(certificate.publicKey).equals(der(publicKey)) && new Date(certificate.validTo).getTime() - Date.now() > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

async function selfSignedCertificate(privateKey: KeyObject, publicKey: KeyObject, commonName: string): Promise<string> {
  // @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API;
  // loaded here, once a certificate is actually made, so the polyfill stays out of every other path.
  await import('reflect-metadata');
  const { X509CertificateGenerator } = await import('@peculiar/x509');
  // The Web Crypto of the global scope, whose types are the ones @peculiar/x509 is written against.
  const webCrypto = globalThis.crypto;
  const subtle = webCrypto.subtle;
  const keys = {
    privateKey: await subtle.importKey('pkcs8', new Uint8Array(privateKey.export({ type: 'pkcs8', format: 'der' })), SIGNING_ALGORITHM, false, ['sign']),
    publicKey: await subtle.importKey('spki', new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })), SIGNING_ALGORITHM, true, ['verify']),
  };
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_YEARS);
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomBytes(16)
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      name: `CN=${commonName}`,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING_ALGORITHM,
      keys,
    },
    webCrypto,
  );
  return certificate.toString('pem');
}
