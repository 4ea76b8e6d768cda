import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The dashboard: built into dist/web, which the server serves at `/` (src/modules/dashboard). */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run web:dev`: the page reloads as you edit, the API is the server of `npm start`.
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/widget': 'http://127.0.0.1:3000' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script: the page's content security policy allows only this origin's files.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
