#!/usr/bin/env node
// The CLI is written in TypeScript that Node.js runs as it is (type stripping, Node 22.18+ and 24).
if (!process.features.typescript) {
  console.error(`cloud needs Node.js 24 or newer (this is ${process.version}); inside the platform's repository, run it with npx cloud.`);
  process.exit(1);
}
const { main } = await import('../src/main.ts');
const { processIo } = await import('../src/io.ts');
process.exitCode = await main(process.argv.slice(2), processIo());
