// `npm run openapi:snapshot`: writes the current /v1 document to test/contract/openapi.snapshot.json,
// for a change that alters the public contract on purpose. Review the diff before committing it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

process.env.PGLITE_DIR ??= 'memory://';
process.env.APP_URL = 'http://localhost:3000';
process.env.AUTH_SECRET ??= 'openapi-snapshot-'.repeat(3);
process.env.LOG_LEVEL = 'silent';

const { restApi } = await import('../server/app');
const target = path.resolve(import.meta.dirname, '../test/contract/openapi.snapshot.json');
writeFileSync(target, `${JSON.stringify(restApi.openApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
process.exit(0);
