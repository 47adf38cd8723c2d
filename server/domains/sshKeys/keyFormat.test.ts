import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors';
import { fingerprintOf, generateEd25519KeyPair, parsePublicKey } from './keyFormat';

const dir = mkdtempSync(path.join(tmpdir(), 'ssh-key-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sshKeygen(args: string[], input?: string): string {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A key made by OpenSSH itself; returns the .pub line and what `ssh-keygen -lf` says of it. */
function opensshKey(name: string, typeArgs: string[], comment = 'dev@laptop'): { line: string; fingerprint: string; bits: number } {
  const file = path.join(dir, name);
  sshKeygen(['-q', ...typeArgs, '-N', '', '-C', comment, '-f', file]);
  const line = readFileSync(`${file}.pub`, 'utf8');
  const [bits, fingerprint] = sshKeygen(['-lf', `${file}.pub`])
    .trim()
    .split(' ');
  return { line, fingerprint: fingerprint!, bits: Number(bits) };
}

function wire(...parts: Array<string | Buffer>): Buffer {
  return Buffer.concat(
    parts.map((p) => {
      const bytes = typeof p === 'string' ? Buffer.from(p, 'latin1') : p;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return Buffer.concat([length, bytes]);
    }),
  );
}

function expectInvalid(line: string, message: RegExp) {
  let thrown: unknown;
  try {
    parsePublicKey(line);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe('VALIDATION_ERROR');
  expect((thrown as AppError).message).toMatch(message);
}

describe('OpenSSH public keys made by ssh-keygen', () => {
  it.each([
    ['ed25519', ['-t', 'ed25519'], 'ssh-ed25519'],
    ['rsa2048', ['-t', 'rsa', '-b', '2048'], 'ssh-rsa'],
    ['rsa4096', ['-t', 'rsa', '-b', '4096'], 'ssh-rsa'],
    ['ecdsa256', ['-t', 'ecdsa', '-b', '256'], 'ecdsa-sha2-nistp256'],
    ['ecdsa384', ['-t', 'ecdsa', '-b', '384'], 'ecdsa-sha2-nistp384'],
    ['ecdsa521', ['-t', 'ecdsa', '-b', '521'], 'ecdsa-sha2-nistp521'],
  ])('%s: parsed, with the fingerprint and size ssh-keygen -lf prints', (name, args, type) => {
    const made = opensshKey(name, args);
    const parsed = parsePublicKey(made.line);
    expect(parsed.keyType).toBe(type);
    expect(parsed.fingerprint).toBe(made.fingerprint);
    expect(parsed.bits).toBe(made.bits);
    expect(parsed.comment).toBe('dev@laptop');
    expect(parsed.publicKey).toBe(made.line.trim());
  });

  it('accepts keys without a comment and keeps a comment with spaces', () => {
    const made = opensshKey('nocomment', ['-t', 'ed25519'], '');
    const bare = parsePublicKey(made.line);
    expect(bare.comment).toBeNull();
    expect(bare.publicKey).toBe(made.line.trim());
    const [type, data] = made.line.trim().split(' ');
    expect(parsePublicKey(`  ${type}\t${data}   Ada's   work laptop \n`).comment).toBe("Ada's work laptop");
  });
});

describe('generated ed25519 key pairs', () => {
  it('are read back by ssh-keygen -y as the same public key, with the same fingerprint', () => {
    const pair = generateEd25519KeyPair('deploy key');
    expect(pair.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
    const file = path.join(dir, 'generated');
    writeFileSync(file, pair.privateKey, { mode: 0o600 });
    const derived = sshKeygen(['-y', '-f', file]).trim();
    expect(derived.split(' ').slice(0, 2)).toEqual(pair.publicKey.publicKey.split(' ').slice(0, 2));
    expect(pair.publicKey.publicKey).toBe(`${derived.split(' ').slice(0, 2).join(' ')} deploy key`);
    expect(sshKeygen(['-lf', file]).split(' ')[1]).toBe(pair.publicKey.fingerprint);
  });

  it('sign data that verifies against their own public key (the private half really matches)', () => {
    const pair = generateEd25519KeyPair('signer');
    const file = path.join(dir, 'signer');
    writeFileSync(file, pair.privateKey, { mode: 0o600 });
    const data = path.join(dir, 'message');
    writeFileSync(data, 'proof of possession');
    sshKeygen(['-Y', 'sign', '-f', file, '-n', 'file', data]);
    const verdict = sshKeygen(['-Y', 'check-novalidate', '-n', 'file', '-s', `${data}.sig`], 'proof of possession');
    expect(verdict).toContain(pair.publicKey.fingerprint);
  });

  it('differ every time', () => {
    expect(generateEd25519KeyPair('a').publicKey.fingerprint).not.toBe(generateEd25519KeyPair('a').publicKey.fingerprint);
  });
});

describe('refused public keys (422 VALIDATION_ERROR saying what is wrong)', () => {
  const ed = () =>
    opensshKey(`ed-${Math.random().toString(36).slice(2)}`, ['-t', 'ed25519'])
      .line.trim()
      .split(' ');

  it('empty input', () => expectInvalid('   ', /empty/));

  it('a private key', () => {
    const pair = generateEd25519KeyPair('x');
    expectInvalid(pair.privateKey, /private key/);
  });

  it('an RFC 4716 or PEM public key, with the command that converts it', () => {
    expectInvalid('---- BEGIN SSH2 PUBLIC KEY ----\nAAAA\n---- END SSH2 PUBLIC KEY ----', /ssh-keygen -i -f/);
    expectInvalid('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /ssh-keygen -i -m PKCS8/);
  });

  it('two keys at once', () => {
    const [type, data] = ed();
    expectInvalid(`${type} ${data}\n${type} ${data}`, /single line/);
  });

  it('unknown, DSA and security-key types, naming the supported ones', () => {
    const [, data] = ed();
    expectInvalid(`ssh-foo ${data}`, /Unsupported key type "ssh-foo".*ssh-ed25519, ssh-rsa/);
    expectInvalid(`ssh-dss ${data}`, /DSA/);
    expectInvalid(`sk-ssh-ed25519@openssh.com ${data}`, /Security-key/);
    expectInvalid(`from="10.0.0.1" ssh-ed25519 ${data}`, /authorized_keys options/);
  });

  it('missing or bad base64', () => {
    expectInvalid('ssh-ed25519', /missing/);
    expectInvalid('ssh-ed25519 AAAA$$$$', /not valid base64/);
    expectInvalid('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI', /not valid base64/);
    expectInvalid('ssh-ed25519 AAB=', /not valid base64/);
    expectInvalid('ssh-ed25519 AAAB', /ends too early/);
  });

  it('an algorithm inside the data that does not match the prefix', () => {
    const rsa = opensshKey('mismatch-rsa', ['-t', 'rsa', '-b', '2048']).line.split(' ')[1];
    expectInvalid(`ssh-ed25519 ${rsa}`, /says ssh-ed25519 but its key data holds a "ssh-rsa" key/);
    const p256 = opensshKey('mismatch-p256', ['-t', 'ecdsa', '-b', '256']).line.split(' ')[1];
    expectInvalid(`ecdsa-sha2-nistp384 ${p256}`, /holds a "ecdsa-sha2-nistp256" key/);
  });

  it('an ECDSA blob naming another curve than its algorithm', () => {
    const p256 = parsePublicKey(opensshKey('curve', ['-t', 'ecdsa', '-b', '256']).line).blob;
    const point = p256.subarray(p256.length - 65);
    const forged = wire('ecdsa-sha2-nistp256', 'nistp384', point).toString('base64');
    expectInvalid(`ecdsa-sha2-nistp256 ${forged}`, /curve "nistp384"/);
  });

  it('an ECDSA point that is not on the curve', () => {
    const point = Buffer.alloc(65, 7);
    point[0] = 4;
    expectInvalid(`ecdsa-sha2-nistp256 ${wire('ecdsa-sha2-nistp256', 'nistp256', point).toString('base64')}`, /not describe a valid public key/);
  });

  it('RSA keys under 2048 bits, saying how many bits it has', () => {
    const short = opensshKey('rsa1024', ['-t', 'rsa', '-b', '1024']);
    expectInvalid(short.line, /at least 2048 bits; this one has 1024/);
  });

  it('truncated data and trailing bytes', () => {
    const blob = parsePublicKey(ed().join(' ')).blob;
    expectInvalid(`ssh-ed25519 ${blob.subarray(0, blob.length - 4).toString('base64')}`, /ends too early/);
    expectInvalid(`ssh-ed25519 ${Buffer.concat([blob, Buffer.from([0, 0, 0, 0])]).toString('base64')}`, /left over/);
    expectInvalid(`ssh-ed25519 ${wire('ssh-ed25519', Buffer.alloc(31)).toString('base64')}`, /32 bytes; this one has 31/);
  });
});

describe('fingerprintOf', () => {
  it('is SHA256: and unpadded base64', () => {
    expect(fingerprintOf(Buffer.from('abc'))).toBe('SHA256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0');
  });
});
