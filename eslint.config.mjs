// Flat config: typescript-eslint with type information; zero warnings allowed (npm run lint).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/vscode-host/**', 'bench/**/node_modules/**', 'dist-vsix/**', '.cache/**', 'media/webview/**/*.min.js'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'smart'],
      curly: ['error', 'multi-line'],
      'no-console': 'off',
    },
  },
  {
    // The core, the lint engine, the transports, the CLI and the language server never import vscode.
    files: ['src/core/**/*.ts', 'src/lint/**/*.ts', 'src/server/**/*.ts', 'src/transport/**/*.ts', 'src/cli/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'This layer must not depend on VS Code (docs/architecture.md).' }] }],
    },
  },
  {
    // The language server talks LSP on stdout; a stray console.log corrupts the stream.
    files: ['src/server/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly', performance: 'readonly', __dirname: 'readonly', document: 'readonly', window: 'readonly', acquireVsCodeApi: 'readonly', require: 'readonly', module: 'writable' },
    },
  },
);
