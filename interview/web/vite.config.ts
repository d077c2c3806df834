import { defineConfig } from 'vitest/config';

// The build goes to dist/app so that dist/README (committed) keeps the Go
// embed pattern valid when the app has not been built.
export default defineConfig({
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2020',
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8082' },
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
