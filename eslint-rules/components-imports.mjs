// Local rule: what the React panel (components/**) may import from the server side.
//
// Allowed from server/: schemas and types only —
//   server/domains/<name>/schema.ts, server/platform/schemas.ts, server/platform/auth/{scopes,roles}.ts,
//   and type-only imports of anything (`import type …`, or `import { type A, type B }`), which the compiler erases.
// Forbidden: any other value import from server/ (or the root server.ts), and db/index.ts (the database driver);
// db/schema/** is fine.
//
// import-x/no-restricted-paths cannot express the type-only exception, hence this rule. It works on the import
// specifier alone (the `@/` alias and relative paths), so it needs no resolver and does not depend on the file existing.
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

const ALLOWED_SERVER_MODULES = new Set(['server/platform/schemas', 'server/platform/auth/scopes', 'server/platform/auth/roles']);
const DOMAIN_SCHEMA = /^server\/domains\/[^/]+\/schema$/;

/** The repo-relative module path an import specifier points at (no extension, no trailing /index), or null for packages. */
export function moduleOf(specifier, filename, root = ROOT) {
  let absolute;
  if (specifier.startsWith('@/')) absolute = path.join(root, specifier.slice(2));
  else if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
    absolute = path.resolve(path.dirname(filename), specifier);
  } else return null;
  const relative = path.relative(root, absolute).split(path.sep).join('/');
  if (relative.startsWith('..')) return null;
  return relative.replace(/\.(?:tsx?|mts|cts|jsx?|mjs|cjs)$/, '').replace(/\/index$/, '');
}

function isTypeOnly(node) {
  switch (node.type) {
    case 'ImportDeclaration':
      return (
        node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'))
      );
    case 'ExportNamedDeclaration':
      return node.exportKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.exportKind === 'type'));
    case 'ExportAllDeclaration':
    case 'TSImportEqualsDeclaration':
      return node.exportKind === 'type' || node.importKind === 'type';
    default:
      return false; // import() is a runtime import
  }
}

/** @type {import('eslint').Rule.RuleModule} */
export const componentsImports = {
  meta: {
    type: 'problem',
    docs: { description: 'components/ may import from server/ only schemas and types, and never the db driver (db/index.ts)' },
    schema: [],
    messages: {
      server:
        "components/ may import from server/ only schemas and types: '{{source}}' is server code. " +
        'Import a schema (server/domains/*/schema.ts, server/platform/schemas.ts, server/platform/auth/scopes.ts or roles.ts) or use `import type`.',
      db: "components/ must not import the database driver '{{source}}' (db/index.ts); db/schema/** constants are fine.",
    },
  },
  create(context) {
    const filename = context.physicalFilename ?? context.filename;

    function check(node, sourceNode) {
      if (!sourceNode || sourceNode.type !== 'Literal' || typeof sourceNode.value !== 'string') return;
      const target = moduleOf(sourceNode.value, filename);
      if (target === null || isTypeOnly(node)) return;
      if (target === 'db') {
        context.report({ node: sourceNode, messageId: 'db', data: { source: sourceNode.value } });
      } else if (target === 'server' || target.startsWith('server/')) {
        if (DOMAIN_SCHEMA.test(target) || ALLOWED_SERVER_MODULES.has(target)) return;
        context.report({ node: sourceNode, messageId: 'server', data: { source: sourceNode.value } });
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportEqualsDeclaration: (node) => {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node, node.moduleReference.expression);
      },
    };
  },
};

export default {
  meta: { name: 'local' },
  rules: { 'components-imports': componentsImports },
};
