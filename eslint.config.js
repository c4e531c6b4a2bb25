import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    },
  },
  {
    files: ['**/config.ts', 'scripts/**', 'packages/test-kit/**', 'packages/bench/**', 'packages/system-tests/**', '**/test/**', '**/*.test.ts', '**/vitest.config.ts', '**/bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
