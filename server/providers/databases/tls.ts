import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeAtomically, type ProcessUser } from '../process/supervisedProcess';

const CERTIFICATE_YEARS = 20;
/** A certificate this close to its end is made again. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * The pooler's TLS key and self-signed certificate, made once and kept: clients connect with
 * `sslmode=require`, which encrypts without checking the certificate (as with the cluster's own,
 * made by scripts/postgres-tenant-cluster.sh). Made again when a file is missing, unreadable, does
 * not match the key or is about to expire.
 */
export async function ensureCertificate(keyFile: string, certificateFile: string, commonName: string, owner?: ProcessUser): Promise<void> {
  const keyPem = await readOrNull(keyFile);
  const certificatePem = await readOrNull(certificateFile);
  if (keyPem !== null && certificatePem !== null && certifies(certificatePem, keyPem)) return;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const certificate = await selfSigned(privateKey, publicKey, commonName);
  await writeAtomically(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600, owner });
  await writeAtomically(certificateFile, certificate, { mode: 0o644, owner });
}

function certifies(certificatePem: string, keyPem: string): boolean {
  try {
    const certificate = new X509Certificate(certificatePem);
    const der = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });
    const publicKey = createPublicKey(createPrivateKey(keyPem));
    return der(certificate.publicKey).equals(der(publicKey)) && new Date(certificate.validTo).getTime() - Date.now() > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

async function selfSigned(privateKey: KeyObject, publicKey: KeyObject, commonName: string): Promise<string> {
  // @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API
  // (as in server/providers/registry/keys.ts): loaded only when a certificate is made.
  await import('reflect-metadata');
  const { X509CertificateGenerator } = await import('@peculiar/x509');
  const webCrypto = globalThis.crypto;
  const keys = {
    privateKey: await webCrypto.subtle.importKey('pkcs8', new Uint8Array(privateKey.export({ type: 'pkcs8', format: 'der' })), ALGORITHM, false, ['sign']),
    publicKey: await webCrypto.subtle.importKey('spki', new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })), ALGORITHM, true, ['verify']),
  };
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_YEARS);
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomBytes(16)
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      // Only letters, digits, dots, hyphens and colons reach the name: no RDN syntax to escape.
      name: `CN=${commonName.replace(/[^A-Za-z0-9.:-]/g, '') || 'localhost'}`,
      notBefore,
      notAfter,
      signingAlgorithm: ALGORITHM,
      keys,
    },
    webCrypto,
  );
  return certificate.toString('pem');
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}
