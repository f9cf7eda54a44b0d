#!/usr/bin/env node
// The `semaforo` launcher. Kept in plain JavaScript so it can say clearly when Node is too old,
// instead of failing on the TypeScript it loads next (Node >= 22.12 runs .ts files natively).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `semaforo: needs Node.js 22.12 or newer, this is ${process.version}. ` +
      'Run it through npm (`npx semaforo`), which uses the Node 22 installed with the project.\n',
  );
  process.exit(1);
}
process.removeAllListeners('warning'); // Node's "type stripping is experimental" notice is not for users
const { main } = await import('../electron/cli/main.ts');
await main();
