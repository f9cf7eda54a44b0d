#!/usr/bin/env node
// `npm start`: launches the tray app, or says in one line why it cannot (no Electron binary).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Read where the electron package put its binary; requiring the package would try to download it.
let binary;
try {
  const dir = path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  const rel = fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
  binary = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel)
    : path.join(dir, 'dist', rel);
} catch {
  binary = null;
}
if (typeof binary !== 'string' || !fs.existsSync(binary)) {
  process.stderr.write(
    "semaforo: Electron's binary is not installed here (installed with ELECTRON_SKIP_BINARY_DOWNLOAD or offline); " +
      'run `npm install` with internet for the tray app, or use the dashboard in a browser: npx semaforo serve\n',
  );
  process.exit(1);
}
const main = path.join(root, 'dist', 'app', 'electron', 'main', 'main.js');
const child = spawn(binary, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
