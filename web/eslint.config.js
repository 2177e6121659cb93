// The viewer's lint: ESLint's recommended rules and a few more, over the page's modules (run in
// the browser) and the scripts beside them (run by node), all ES modules. The build's tests run
// it (ctest viewer_lint, tests/web/lint.mjs) with the ESLint that package-lock.json pins; in this
// folder, after `npm ci`, `npx eslint` does the same.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  { files: ['src/**/*.js'], languageOptions: { globals: globals.browser } },
  { files: ['*.js', '*.mjs'], languageOptions: { globals: globals.node } },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'array-callback-return': 'error',
      'consistent-return': 'error',
      eqeqeq: 'error',
      'no-promise-executor-return': 'error',
      'no-self-compare': 'error',
      'no-shadow': 'error',
      'no-template-curly-in-string': 'error',
      'no-throw-literal': 'error',
      'no-unmodified-loop-condition': 'error',
      'no-unused-expressions': 'error',
      'no-use-before-define': ['error', { functions: false, classes: false }],
      'no-var': 'error',
      'prefer-const': 'error',
      radix: 'error',
    },
  },
];
