/** Builds the control panel into dist/panel, served by the server at /manager/ (src/http/panel.ts). */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/manager/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/panel', import.meta.url)),
    emptyOutDir: true,
    // One small app: no need to warn about chunk sizes or to split.
    chunkSizeWarningLimit: 1024,
  },
  logLevel: 'warn',
});
