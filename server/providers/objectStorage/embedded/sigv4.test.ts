import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AwsChunkedDecoder, PayloadHashCheck } from './chunked';
import { S3Error } from './s3Error';
import { parseAuthentication, sha256Hex, verifySignature, type RequestToVerify, type SignedAuthentication } from './sigv4';

/** The worked example of AWS's "Transferring Payload in Multiple Chunks" page, with its published signatures. */
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const EXAMPLE_TIME = Date.UTC(2013, 4, 24, 0, 0, 0);
const SEED = '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9';
const CHUNK_SIGNATURES = [
  'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
  '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
  'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
];

function exampleRequest(signature = SEED): RequestToVerify {
  return {
    method: 'PUT',
    rawPath: '/examplebucket/chunkObject.txt',
    rawQuery: '',
    headers: {
      host: 's3.amazonaws.com',
      'x-amz-date': '20130524T000000Z',
      'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=${signature}`,
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': '66560',
      'content-length': '66824',
    },
  };
}

function exampleBody(signatures = CHUNK_SIGNATURES, second = Buffer.alloc(1024, 'a')): Buffer {
  return Buffer.concat([
    Buffer.from(`10000;chunk-signature=${signatures[0]}\r\n`),
    Buffer.alloc(65536, 'a'),
    Buffer.from(`\r\n400;chunk-signature=${signatures[1]}\r\n`),
    second,
    Buffer.from(`\r\n0;chunk-signature=${signatures[2]}\r\n\r\n`),
  ]);
}

function signed(request: RequestToVerify): SignedAuthentication {
  const auth = parseAuthentication(request);
  if (auth.kind !== 'signed') throw new Error('expected a signed request');
  return auth;
}

async function failure(run: () => unknown): Promise<S3Error> {
  try {
    await run();
  } catch (err) {
    if (err instanceof S3Error) return err;
    throw err;
  }
  throw new Error('expected an S3 error');
}

async function decode(body: Buffer, decoder: AwsChunkedDecoder): Promise<string> {
  const out: Buffer[] = [];
  await pipeline(Readable.from([body.subarray(0, 70), body.subarray(70, 40_000), body.subarray(40_000)]), decoder, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) out.push(chunk);
  });
  return Buffer.concat(out).toString('latin1');
}

function exampleDecoder(signing = true): AwsChunkedDecoder {
  const request = exampleRequest();
  const auth = signed(request);
  const key = verifySignature(auth, request, SECRET, EXAMPLE_TIME);
  return new AwsChunkedDecoder({
    signing: signing ? { key, amzDate: auth.amzDate, scope: auth.scope, seedSignature: auth.signature } : null,
    decodedLength: 66560,
  });
}

describe('SigV4 seed signature (AWS example)', () => {
  it('accepts the published seed signature and refuses another secret or a changed signed header', async () => {
    expect(() => verifySignature(signed(exampleRequest()), exampleRequest(), SECRET, EXAMPLE_TIME)).not.toThrow();
    expect((await failure(() => verifySignature(signed(exampleRequest()), exampleRequest(), `${SECRET}x`, EXAMPLE_TIME))).code).toBe('SignatureDoesNotMatch');
    const changed = exampleRequest();
    changed.headers['x-amz-storage-class'] = 'STANDARD';
    expect((await failure(() => verifySignature(signed(changed), changed, SECRET, EXAMPLE_TIME))).code).toBe('SignatureDoesNotMatch');
  });

  it('refuses a request more than 15 minutes from the server clock, either way', async () => {
    const request = exampleRequest();
    expect(() => verifySignature(signed(request), request, SECRET, EXAMPLE_TIME + 14 * 60_000)).not.toThrow();
    for (const skew of [16 * 60_000, -16 * 60_000]) {
      const error = await failure(() => verifySignature(signed(request), request, SECRET, EXAMPLE_TIME + skew));
      expect([error.code, error.status]).toEqual(['RequestTimeTooSkewed', 403]);
    }
  });
});

describe('aws-chunked bodies', () => {
  it('decodes the example body with its published chunk signatures', async () => {
    const decoded = await decode(exampleBody(), exampleDecoder());
    expect(decoded).toBe('a'.repeat(66560));
  });

  it('refuses a chunk whose data or signature was changed', async () => {
    const tamperedData = await failure(() => decode(exampleBody(CHUNK_SIGNATURES, Buffer.alloc(1024, 'b')), exampleDecoder()));
    expect(tamperedData.code).toBe('SignatureDoesNotMatch');
    const swapped = await failure(() => decode(exampleBody([CHUNK_SIGNATURES[1]!, CHUNK_SIGNATURES[0]!, CHUNK_SIGNATURES[2]!]), exampleDecoder()));
    expect(swapped.code).toBe('SignatureDoesNotMatch');
  });

  it('refuses a body cut short or longer than x-amz-decoded-content-length says', async () => {
    const body = exampleBody();
    expect((await failure(() => decode(body.subarray(0, body.length - 10), exampleDecoder()))).code).toBe('IncompleteBody');
    const unsigned = new AwsChunkedDecoder({ signing: null, decodedLength: 4 });
    expect((await failure(() => decode(Buffer.from('5\r\nhello\r\n0\r\n\r\n'), unsigned))).code).toBe('IncompleteBody');
  });

  it('decodes the unsigned-trailer form and checks its CRC32 trailer', async () => {
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32('hello world'));
    const body = (crc: string) => Buffer.from(`6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:${crc}\r\n\r\n`);
    expect(await decode(body(checksum.toString('base64')), new AwsChunkedDecoder({ signing: null, decodedLength: 11 }))).toBe('hello world');
    const wrong = await failure(() => decode(body('AAAAAA=='), new AwsChunkedDecoder({ signing: null, decodedLength: 11 })));
    expect([wrong.code, wrong.status]).toEqual(['BadDigest', 400]);
  });
});

describe('signed payload hash', () => {
  it('passes a body matching x-amz-content-sha256 and refuses another', async () => {
    expect(await text(Readable.from([Buffer.from('payload')]).pipe(new PayloadHashCheck(sha256Hex('payload'))))).toBe('payload');
    const error = await failure(() => text(Readable.from([Buffer.from('payload!')]).pipe(new PayloadHashCheck(sha256Hex('payload')))));
    expect(error.code).toBe('XAmzContentSHA256Mismatch');
  });
});
