// `npm run sdk:generate`: rewrites the SDK's generated types from the /v1 document the current
// server code serves. test/sdkTypes.test.ts fails whenever the committed file is behind it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

process.env.PGLITE_DIR ??= 'memory://';
process.env.APP_URL = 'http://localhost:3000';
process.env.AUTH_SECRET ??= 'sdk-generate-'.repeat(4);
process.env.LOG_LEVEL = 'silent';

const { restApi } = await import('../server/app');
const { renderTypes, SDK_TYPES_FILE } = await import('../clients/sdk/codegen');
const target = path.resolve(import.meta.dirname, '..', SDK_TYPES_FILE);
writeFileSync(target, await renderTypes(restApi.openApiDocument()));
console.log(`wrote ${path.relative(process.cwd(), target)}`);
process.exit(0);
