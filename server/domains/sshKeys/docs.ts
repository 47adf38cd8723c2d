import { SSH_KEY_GENERATIONS_PER_HOUR } from './service';

const DOCS_URL = 'Errors carry `docsUrl`, a page about adding keys.';

export const LIST_SSH_KEYS = `Newest first. ${DOCS_URL}`;

export const CREATE_SSH_KEY = `Takes one OpenSSH public key line: ssh-ed25519, ssh-rsa of 2048 bits or more, or ecdsa-sha2-nistp256/384/521, with an optional comment. The key data is decoded and must hold a key of the named type; anything else is 422 VALIDATION_ERROR saying what is wrong. 409 CONFLICT naming the existing key when its fingerprint is already registered in the project. A key must be registered before the server that should trust it is created. ${DOCS_URL}`;

export const GENERATE_SSH_KEY = `Makes an ed25519 key pair, registers its public half and returns the private half once as \`privateKey\` (OpenSSH format); it is never stored or logged. At most ${SSH_KEY_GENERATIONS_PER_HOUR} per project per hour, then 429 RATE_LIMITED with Retry-After. ${DOCS_URL}`;

export const DELETE_SSH_KEY = `Removes the key from the project. Servers created with it keep trusting it: \`stillAuthorisedOn\` counts those still live. ${DOCS_URL}`;
