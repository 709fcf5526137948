import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'node_modules/', 'examples/', 'bench/scale/knobs/', 'test/fixtures/initProjects/', 'test-artifacts/', 'harness/js/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', 'scripts/**', 'test/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // Tool configuration in CommonJS (dependency-cruiser's).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The evaluation harness library: plain CommonJS that evaluators load with require().
    files: ['harness/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Type-aware rules, for the mistakes types can see: a promise nobody awaits or catches (an
    // unhandled rejection ends a daemon), a promise passed where a plain callback is expected,
    // a switch over a union that forgot a member, an assertion that hides nothing.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // The CLI and the daemon are a split ES-module build, where `import('some-package')` of a
    // CommonJS package yields only its `default` (evanw/esbuild#3245): load a module of ours
    // on demand instead, which imports the package statically (e.g. daemon/evolution/llm/openAiSdk.ts).
    files: ['daemon/**/*.ts', 'shared/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/^[^.]/]', message: 'import() a module of ours that imports the package statically (evanw/esbuild#3245), not the package itself' },
      ],
    },
  },
  {
    rules: {
      // Namespaces group each RPC message's method, params and types (the vscode-eslint pattern).
      '@typescript-eslint/no-namespace': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
