import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A package's files under lib/, dist/, src/ or internal/ are its internals:
// they move or change shape in any release. Import a package by its
// documented entry points; the subpaths below are documented as public
// although they sit in such a folder.
const PUBLIC_DEEP_IMPORTS = ['nodemailer/lib/mail-composer'];
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// A bare specifier (not relative, not node:) with such a folder after the
// package name; nodemailer/lib/ has a rule of its own with a better message.
const PRIVATE_PATH = `^(?!(?:${PUBLIC_DEEP_IMPORTS.map(escapeRegex).join('|')})$)(?!nodemailer/lib/)(?![./]|node:)(?:@[^/]+/)?[^/]+/(?:[^/]+/)*(?:lib|dist|src|internal)(?:/|$)`;
const NODEMAILER_PRIVATE = '^nodemailer/lib/(?!mail-composer$)';
const PRIVATE_PATH_MESSAGE =
  'Import a package through its documented entry points, not its internal files; a subpath its documentation names as public goes into PUBLIC_DEEP_IMPORTS in eslint.config.js.';
const NODEMAILER_MESSAGE =
  "nodemailer's public API is the package itself and nodemailer/lib/mail-composer; its other lib/ modules are internals.";
// The same paths in `import()` expressions and `typeof import()` types, which no-restricted-imports does not see.
// esquery ends a regular expression at the first slash, even an escaped one.
const asSelectorRegex = (source) => `/${source.replaceAll('/', '\\x2F')}/`;
const restrictedImportExpressions = [
  [NODEMAILER_PRIVATE, NODEMAILER_MESSAGE],
  [PRIVATE_PATH, PRIVATE_PATH_MESSAGE],
].flatMap(([source, message]) => [
  { selector: `ImportExpression > Literal[value=${asSelectorRegex(source)}]`, message },
  { selector: `TSImportType Literal[value=${asSelectorRegex(source)}]`, message },
]);

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/.data/**', '**/.vitest/**', 'out/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The environment is parsed once, in config.ts; everything else receives typed config.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in a config.ts file.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: NODEMAILER_PRIVATE, message: NODEMAILER_MESSAGE },
            { regex: PRIVATE_PATH, message: PRIVATE_PATH_MESSAGE },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ...restrictedImportExpressions],
    },
  },
  {
    // A function past 80 lines is a step waiting to be named: the gateway's stages, identity's
    // controllers and the worker's queues all read as lists of such steps.
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/config.ts', 'scripts/**', 'packages/test-kit/**', 'tooling/bench/**', 'tooling/system-tests/**', '**/test/**', '**/*.test.ts', '**/vitest.config.ts', '**/bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
