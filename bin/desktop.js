#!/usr/bin/env node
// `npm start`: launches the tray app, or says in one line why it cannot (no Electron binary).
// CommonJS, like all of bin/ (bin/package.json).
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const electronDir = path.dirname(require.resolve('electron/package.json'));

// Where the electron package puts its binary (as its index.js computes it). Requiring the
// package instead would start a download with its own output and stack traces.
function binaryPath() {
  let rel = null;
  try {
    rel = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim();
  } catch {
    // not downloaded yet
  }
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const file = override ? path.join(override, rel || 'electron') : rel && path.join(electronDir, 'dist', rel);
  return file && fs.existsSync(file) ? file : null;
}

const fail = (why) => {
  process.stderr.write(
    `semaforo: Electron's binary is not installed here (${why}); ` +
      'run `npx install-electron` with internet for the tray app, or use the dashboard in a browser: npx semaforo serve\n',
  );
  process.exit(1);
};

let binary = binaryPath();
if (!binary) {
  // The electron package has no install script: `npm install` never downloads the binary, the
  // first use does (its docs: "downloaded by default the first time you run Electron"). Do the
  // same, unless the user said not to.
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) fail('ELECTRON_SKIP_BINARY_DOWNLOAD is set');
  process.stderr.write("semaforo: first start: downloading Electron's binary...\n");
  const r = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  binary = binaryPath();
  if (!binary) {
    const reason = (r.stderr ?? '').split('\n').find((l) => l.trim()) ?? `exit code ${r.status}`;
    fail(`the download failed: ${reason.trim().slice(0, 200)}`);
  }
}

// The app folder, not dist/.../main.js: Electron then reads package.json (name, version, `main`)
// as it does in the packaged app; given a bare .js file its app name stays "Electron".
const child = spawn(binary, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
// Electron turns SIGINT/SIGTERM into a graceful quit (the queue drains); wait for it, and pass on
// a signal sent to this launcher alone. A repeat from the terminal's Ctrl-C is harmless.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
