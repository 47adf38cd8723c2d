import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SCRAM_ITERATIONS, scramVerifier } from './scram';

/** RFC 7677 section 3: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations. */
const RFC_7677 = {
  password: 'pencil',
  salt: 'W22ZaJ0SNY7soEsUEjb6gQ==',
  clientFirstBare: 'n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinalWithoutProof: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  proof: 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverSignature: '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

function parse(verifier: string) {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier);
  if (!match) throw new Error(`not a verifier: ${verifier}`);
  return { iterations: Number(match[1]), salt: match[2]!, storedKey: Buffer.from(match[3]!, 'base64'), serverKey: Buffer.from(match[4]!, 'base64') };
}

describe('SCRAM-SHA-256 verifier', () => {
  it('matches the exchange of RFC 7677: the server signature and the client proof check out against it', () => {
    const verifier = scramVerifier(RFC_7677.password, Buffer.from(RFC_7677.salt, 'base64'), 4096);
    const { iterations, salt, storedKey, serverKey } = parse(verifier);
    expect(iterations).toBe(4096);
    expect(salt).toBe(RFC_7677.salt);

    const authMessage = [RFC_7677.clientFirstBare, RFC_7677.serverFirst, RFC_7677.clientFinalWithoutProof].join(',');
    // What a server holding only this verifier checks: ServerSignature, and H(ClientProof XOR ClientSignature) = StoredKey.
    expect(createHmac('sha256', serverKey).update(authMessage).digest('base64')).toBe(RFC_7677.serverSignature);
    const clientSignature = createHmac('sha256', storedKey).update(authMessage).digest();
    const proof = Buffer.from(RFC_7677.proof, 'base64');
    const clientKey = Buffer.from(proof.map((byte, index) => byte ^ clientSignature[index]!));
    expect(createHash('sha256').update(clientKey).digest().equals(storedKey)).toBe(true);
  });

  it("has PostgreSQL's shape, a new 16-byte salt each time, and never the password in it", () => {
    const first = scramVerifier('s3cret-password');
    const second = scramVerifier('s3cret-password');
    expect(first).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('s3cret');
  });

  it('takes the iterations asked for, 4096 by default as PostgreSQL', () => {
    expect(SCRAM_ITERATIONS).toBe(4096);
    expect(parse(scramVerifier('pencil', Buffer.alloc(16, 1), 2)).iterations).toBe(2);
    expect(scramVerifier('pencil', Buffer.alloc(16, 1), 2)).not.toBe(scramVerifier('pencil', Buffer.alloc(16, 1), 3));
  });

  it('refuses passwords SASLprep could change, so the stored keys always match what clients send', () => {
    for (const password of ['', 'with space', 'tab\there', 'caf\u00e9', 'pass\u00a0word', 'bell\u0007', 'del\u007f']) {
      expect(() => scramVerifier(password), JSON.stringify(password)).toThrow(/printable ASCII/);
    }
    expect(() => scramVerifier('!~AZaz09-_')).not.toThrow();
  });
});
