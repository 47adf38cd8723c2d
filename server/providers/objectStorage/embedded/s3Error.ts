/** An answer in S3's own error format, so S3 clients surface the code they know (`err.name`). */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export const accessDenied = (message = 'Access Denied') => new S3Error('AccessDenied', 403, message);

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

export function xmlElement(name: string, value: string): string {
  return `<${name}>${escapeXml(value)}</${name}>`;
}

export function errorXml(error: S3Error, resource: string, requestId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    xmlElement('Code', error.code) +
    xmlElement('Message', error.message) +
    xmlElement('Resource', resource) +
    xmlElement('RequestId', requestId) +
    '</Error>'
  );
}
