import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { S3Error } from './s3Error';
import { EMPTY_SHA256, sameHex, scopeString, sign, type CredentialScope } from './sigv4';

/** What the chunk signatures of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body chain from. */
export interface ChunkSigning {
  key: Buffer;
  amzDate: string;
  scope: CredentialScope;
  seedSignature: string;
}

export interface AwsChunkedOptions {
  /** Null for STREAMING-UNSIGNED-PAYLOAD-TRAILER: chunks carry no signature. */
  signing: ChunkSigning | null;
  /** `x-amz-decoded-content-length`: the plain body's length, which the chunks must add up to. */
  decodedLength: number | null;
}

/** A chunk header is a hex size and at most a signature; anything longer is not aws-chunked. */
const MAX_LINE = 4096;
const CRLF = Buffer.from('\r\n');

type State = 'header' | 'data' | 'dataEnd' | 'trailer' | 'done';

const incomplete = (message: string) => new S3Error('IncompleteBody', 400, message);

/**
 * Turns an `aws-chunked` body into the plain body it carries, checking each chunk's signature
 * (chained from the seed signature of the request) or, in the unsigned-trailer form, the checksum in
 * the trailer. Fails the stream with the S3 error a client expects; the caller must not keep what
 * was decoded before a failure.
 */
export class AwsChunkedDecoder extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private state: State = 'header';
  private remaining = 0;
  private chunkSignature: string | null = null;
  private chunkHash: Hash | null = null;
  private previousSignature: string;
  private decoded = 0;
  private readonly checksums = { crc32: 0, sha1: createHash('sha1'), sha256: createHash('sha256') };

  constructor(private readonly options: AwsChunkedOptions) {
    super();
    this.previousSignature = options.signing?.seedSignature ?? '';
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      this.consume();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.state !== 'done') return callback(incomplete('The request body ended before its final chunk'));
    if (this.options.decodedLength !== null && this.decoded !== this.options.decodedLength) {
      return callback(incomplete(`The chunks carry ${this.decoded} bytes; x-amz-decoded-content-length says ${this.options.decodedLength}`));
    }
    callback();
  }

  private consume(): void {
    for (;;) {
      if (this.state === 'data') {
        if (this.pending.length === 0) return;
        const take = Math.min(this.remaining, this.pending.length);
        const data = this.pending.subarray(0, take);
        this.pending = this.pending.subarray(take);
        this.remaining -= take;
        this.decoded += take;
        this.chunkHash?.update(data);
        this.checksums.crc32 = crc32(data, this.checksums.crc32);
        this.checksums.sha1.update(data);
        this.checksums.sha256.update(data);
        this.push(data);
        if (this.remaining === 0) this.state = 'dataEnd';
        continue;
      }
      if (this.state === 'done') {
        if (this.pending.length > 0) throw incomplete('The request body continues after its final chunk');
        return;
      }
      const line = this.takeLine();
      if (line === null) return;
      if (this.state === 'dataEnd') {
        if (line !== '') throw incomplete('A chunk is longer than its declared size');
        this.verifyChunk();
        this.state = 'header';
      } else if (this.state === 'header') {
        this.startChunk(line);
      } else if (line === '') {
        this.state = 'done';
      } else {
        this.checkTrailer(line);
      }
    }
  }

  private takeLine(): string | null {
    const end = this.pending.indexOf(CRLF);
    if (end < 0) {
      if (this.pending.length > MAX_LINE) throw incomplete('A chunk header is malformed');
      return null;
    }
    const line = this.pending.subarray(0, end).toString('latin1');
    this.pending = this.pending.subarray(end + 2);
    return line;
  }

  private startChunk(line: string): void {
    const [sizeText = '', ...extensions] = line.split(';');
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText)) throw incomplete('A chunk header is malformed');
    const size = Number.parseInt(sizeText, 16);
    const signature = extensions.find((e) => e.startsWith('chunk-signature='))?.slice('chunk-signature='.length) ?? null;
    if (this.options.signing && !signature) throw new S3Error('SignatureDoesNotMatch', 403, 'A chunk carries no chunk-signature');
    this.chunkSignature = signature;
    this.chunkHash = this.options.signing ? createHash('sha256') : null;
    if (size === 0) {
      // The final chunk signs an empty payload; what follows is the trailer section.
      this.verifyChunk();
      this.state = 'trailer';
    } else {
      this.remaining = size;
      this.state = 'data';
    }
  }

  private verifyChunk(): void {
    const signing = this.options.signing;
    if (!signing || !this.chunkHash) return;
    const expected = sign(
      signing.key,
      ['AWS4-HMAC-SHA256-PAYLOAD', signing.amzDate, scopeString(signing.scope), this.previousSignature, EMPTY_SHA256, this.chunkHash.digest('hex')].join('\n'),
    );
    if (!sameHex(expected, this.chunkSignature ?? '')) {
      throw new S3Error('SignatureDoesNotMatch', 403, 'The chunk signature we calculated does not match the signature you provided.');
    }
    this.previousSignature = expected;
    this.chunkHash = null;
  }

  /** Checksums this endpoint can compute are checked; others (CRC32C, CRC64NVME) pass unchecked. */
  private checkTrailer(line: string): void {
    const colon = line.indexOf(':');
    if (colon < 0) throw incomplete('A trailing header is malformed');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const computed: Record<string, () => string> = {
      'x-amz-checksum-crc32': () => {
        const bytes = Buffer.alloc(4);
        bytes.writeUInt32BE(this.checksums.crc32 >>> 0);
        return bytes.toString('base64');
      },
      'x-amz-checksum-sha1': () => this.checksums.sha1.digest('base64'),
      'x-amz-checksum-sha256': () => this.checksums.sha256.digest('base64'),
    };
    const compute = computed[name];
    if (compute && compute() !== value) {
      throw new S3Error('BadDigest', 400, `The ${name.slice('x-amz-checksum-'.length).toUpperCase()} you specified did not match the calculated checksum.`);
    }
  }
}

/** The SHA-256 of a plain body, for a request signed with its payload's hash. */
export class PayloadHashCheck extends Transform {
  private readonly hash = createHash('sha256');

  constructor(private readonly expected: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (!sameHex(this.hash.digest('hex'), this.expected)) {
      return callback(new S3Error('XAmzContentSHA256Mismatch', 400, 'The provided x-amz-content-sha256 header does not match what was computed.'));
    }
    callback();
  }
}
