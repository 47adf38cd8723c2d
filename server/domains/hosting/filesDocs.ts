const SCOPES = 'API keys need `hosting:read` (and `hosting:write` to change anything); a key scoped for servers does not reach hosting.';

const PATHS =
  "Paths are relative to the site's home: no leading `/`, segments joined by single `/`, the empty path is the home, at most 1024 bytes (255 per name), NFC. Refused with 400 BAD_REQUEST: `.` and `..` segments, names of only dots and spaces, names starting with a space or ending with a space or a dot, backslashes, drive letters, NUL and other control characters, look-alikes of `.`, `..` and `/` (such as U+2025 or U+FF0E), and percent-encodings that would decode to a separator, a control character or a dot segment (send paths decoded once, as a URL query or JSON string carries them). A symbolic link that leads outside the home, anywhere in the path, is refused with 400; one that stays inside works.";

const SUSPENDED = 'While the site is suspended for an unpaid invoice, changes are refused with 402 PROJECT_SUSPENDED (reading and downloading still work).';

export const LIST_FILES = `The entries of a folder (\`?path=\`, default the home): name, type (file, directory, symlink, other; a link is shown as itself), size in bytes (0 for all but files) and modifiedAt, folders first, then by name. 404 when the folder does not exist, 400 when the path is a file. ${PATHS} ${SCOPES}`;

export const READ_FILE = `A text file whole (\`?path=\`): up to 1 MB (1,048,576 bytes; larger: 413 PAYLOAD_TOO_LARGE, download it instead) of UTF-8 without NUL bytes (otherwise 400). A byte order mark is kept in \`content\`. ${PATHS} ${SCOPES}`;

export const WRITE_FILE = `Writes a text file whole, creating it when missing; its folder must exist (404). \`content\` is up to 1 MB once encoded as UTF-8 (413 PAYLOAD_TOO_LARGE beyond). The file is replaced atomically (a temporary file beside it, renamed into place) and keeps its permissions; writing through a link inside the home replaces the link's target. 413 PAYLOAD_TOO_LARGE also when the site's disk quota would be exceeded; 400 when the path is a folder. ${SUSPENDED} ${PATHS} ${SCOPES}`;

export const CREATE_FOLDER = `Makes one folder; its parent must exist (404) and nothing may have its name (409 CONFLICT). ${SUSPENDED} ${PATHS} ${SCOPES}`;

export const RENAME = `Renames or moves a file, folder or link (a link is moved as itself). The destination's folder must exist (404); an existing destination is never overwritten (409 CONFLICT); a folder cannot move into itself (400); the home cannot be renamed (400); a relative link that would lead outside the home from its new place is left where it was (400). ${SUSPENDED} ${PATHS} ${SCOPES}`;

export const DELETE = `Deletes a file, a link (never its target), or a folder with everything in it. The home itself cannot be deleted (400). ${SUSPENDED} ${PATHS} ${SCOPES}`;
