import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer is built once and served two ways: from file:// inside Electron and by
// `semaforo serve` over HTTP; relative asset paths work for both.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist/renderer', emptyOutDir: true },
});
