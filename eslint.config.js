// ESLint for the whole repository (npm run lint): the recommended JavaScript and typescript-eslint rules;
// formatting is Prettier's (.prettierrc.json), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'clients/typescript/dist/', 'data/', '.bench/', 'bench/results.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      // An unused parameter or binding kept for its position is named `_…`.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      // Interfaces that only extend one are declaration merging (src/http/access-directory.ts's records, widened).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Text is cleaned of control characters on purpose (names, PDFs, folded search text).
      'no-control-regex': 'off',
      // An async generator's inner function reads its owner as `self`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  {
    // A function fits on a screen and a file does one job; specs (describe blocks) and generated code are exempt.
    files: [
      'src/**/*.ts',
      'app/**/*.ts',
      'commands/**/*.ts',
      'projections/**/*.ts',
      'queries/**/*.ts',
      'bench/**/*.ts',
      'clients/typescript/src/**/*.ts',
      'test/support/**/*.ts',
    ],
    ignores: ['clients/typescript/src/schema.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80 }],
      'max-lines': ['error', { max: 500 }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Specs and the bench read JSON answers of any shape; chai asserts with property getters (`.to.be.true`).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
