import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside each text file of the build, once, so
 * `semaforo serve` sends them compressed without compressing per request (static-files.ts).
 * Electron loads the plain files from file:// and never reads these.
 */
function precompress(): Plugin {
  return {
    name: 'semaforo-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir!;
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const file = path.join(dir, name);
        const data = fs.readFileSync(file);
        if (data.length < 1024) continue; // the headers would cost more than they save
        const br = zlib.brotliCompressSync(data, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        });
        fs.writeFileSync(`${file}.br`, br);
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

// The renderer is built once and served two ways: from file:// inside Electron and by
// `semaforo serve` over HTTP; relative asset paths work for both.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), precompress()],
  build: { outDir: '../dist/renderer', emptyOutDir: true },
});
