import { IMPORT_CONTENT_MAX_BYTES, VARIABLE_DESCRIPTION_MAX, VARIABLE_VALUE_MAX, VARIABLES_PER_PROJECT } from './schema';

const ABOUT = `Variables are plaintext configuration (they are not secrets: values are returned by every read; keep credentials in secrets). Each belongs to one environment (default, development, staging, production); an entry in \`default\` applies to every environment that has none of the same name. Reads need variables:read and any member role; writes need variables:read and variables:write and a role other than viewer.`;

const LIMIT = `At most ${VARIABLES_PER_PROJECT} variables per project, all environments together; beyond that 409 VARIABLE_LIMIT_REACHED.`;

export const LIST_VARIABLES = `${ABOUT} Sorted by name, then environment. \`environment\` keeps the entries of that environment only (without the \`default\` ones it inherits; see /variables/effective).`;

export const EFFECTIVE_VARIABLES =
  'The set a deployment in `environment` gets: each name once, its entry of that environment where there is one, else its `default` entry (`inherited: true`). Asked for `default`, the default entries. Sorted by name.';

export const GET_VARIABLE = 'One variable, with its value.';

export const CREATE_VARIABLE = `Names are upper-case letters, digits and underscores, starting with a letter (at most 100 characters). Values are 0 to ${VARIABLE_VALUE_MAX} characters (an empty value is allowed, as \`NAME=\` in a .env file); a description at most ${VARIABLE_DESCRIPTION_MAX}. \`environment\` defaults to \`default\`. 409 CONFLICT when the name exists in that environment (concurrent creations of one name make one variable). ${LIMIT}`;

export const UPDATE_VARIABLE = `Changes the fields sent (at least one): the value, the description (empty or null removes it), and also the name or the environment, which moves the variable; 409 CONFLICT when the target environment already has that name.`;

export const DELETE_VARIABLE = 'Removes the variable; a `default` entry of the same name, if any, applies again in its environment.';

export const IMPORT_VARIABLES = `Imports the text of a .env file (at most ${IMPORT_CONTENT_MAX_BYTES / 1024} KB) into one environment, in one transaction. Read like \`dotenv\` and Docker Compose read it: blank lines and \`#\` comments are ignored, \`export \` prefixes are allowed, bare values end at a \` #\` comment and are trimmed, single- and back-quoted values are literal, double-quoted ones unescape \`\\n\`, \`\\r\`, \`\\t\`, \`\\\\\` and \`\\"\`, quoted values may span lines, and \`NAME=\` is an empty value. A file with any problem is refused whole with 422 VALIDATION_ERROR and one entry of \`error.fields\` per line, keyed \`content.<line number>\`: a line without \`=\`, an unterminated quote, text after a closing quote, a name outside the naming rule, a name set twice (the dotenv package would keep the last one silently), a value over ${VARIABLE_VALUE_MAX} characters. Names the environment already has are left alone (\`skipped\`) unless \`overwrite\` is true (\`updated\`); the same value is \`unchanged\` either way. \`dryRun: true\` answers the same report and writes nothing (the panel's preview). ${LIMIT}`;
