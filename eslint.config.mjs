// Lint: typescript-eslint's recommended rules over every package; generated and built files skipped.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/dist-bench/**',
      '.data/**',
      'backend/src/infra/database/migrations/**',
      'coverage/**',
      'frontend/test-artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        localStorage: 'readonly',
        document: 'readonly',
        URLSearchParams: 'readonly',
        performance: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // A JSON null passes class-validator's IsOptional and reaches the services as a value: DTOs use `Optional` (infra/http/validation.ts).
  {
    files: ['backend/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message: 'Use Optional() from infra/http/validation: IsOptional lets a JSON null through.',
            },
          ],
        },
      ],
    },
  },
  // TypeScript checks names in the web app (DOM and Node globals); ESLint's no-undef does not know them.
  { files: ['frontend/**/*.{ts,tsx}'], rules: { 'no-undef': 'off' } },
  { files: ['load-tests/k6/**'], languageOptions: { globals: { __ENV: 'readonly', __VU: 'readonly' } } },
);
