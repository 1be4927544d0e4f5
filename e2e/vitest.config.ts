import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    // a page's next state can take over vitest's default second on 2 loaded cores (a training run of the
    // same suite shares them); a poll still fails on a wrong value, only later
    expect: { poll: { timeout: 10_000 } },
  },
});
