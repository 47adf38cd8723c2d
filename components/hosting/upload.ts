import { uploadUrl, type PlacedEntry } from './hosting';

/** Why an upload failed: the API's refusal (code and message from its envelope), or the network. */
export class UploadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

interface Envelope {
  success?: boolean;
  data?: PlacedEntry;
  error?: { code?: string; message?: string };
}

/**
 * Sends one file to the raw upload route as application/octet-stream. XMLHttpRequest rather than
 * fetch because only it reports upload progress. The browser adds the same-origin Origin header
 * and the session cookie, which is what the API asks of a cookie-authenticated upload.
 */
export function uploadFile({
  projectId,
  tenantId,
  folder,
  file,
  onProgress,
}: {
  projectId: string;
  tenantId: string;
  folder: string;
  file: File;
  onProgress: (loaded: number, total: number) => void;
}): { done: Promise<PlacedEntry>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<PlacedEntry>((resolve, reject) => {
    xhr.open('POST', uploadUrl(projectId, tenantId, folder, file.name));
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      const body = parse(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && body?.data) resolve(body.data);
      else reject(new UploadError(body?.error?.code ?? 'UPLOAD_FAILED', body?.error?.message ?? `The upload failed (HTTP ${xhr.status})`));
    };
    xhr.onerror = () => reject(new UploadError('NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.'));
    xhr.onabort = () => reject(new UploadError('ABORTED', 'The upload was cancelled'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}

function parse(text: string): Envelope | null {
  try {
    return JSON.parse(text) as Envelope;
  } catch {
    return null;
  }
}
