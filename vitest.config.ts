import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'shared',
          include: ['tests/shared/**/*.test.ts'],
          exclude: ['**/*.timing.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'reference',
          include: ['tests/reference/**/*.test.ts'],
          exclude: ['**/*.timing.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/reference-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // Timing claims measured on loopback: run on their own, one file at a time, after the rest.
        test: {
          name: 'timing',
          include: ['tests/**/*.timing.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/reference-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
