// The console's build (npm run build:console; npm ci runs it through `prepare`). Output goes to
// console/dist (git-ignored), served by src/console/routes.ts under /console with hashed file
// names. Everything is bundled: the page loads nothing from anywhere but Deskflow.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Small files stay files: the Content-Security-Policy allows no inline script and no data: script.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    // `npx vite console` for development, against a Deskflow on :3000.
    proxy: { '/api': 'http://localhost:3000' },
  },
});
