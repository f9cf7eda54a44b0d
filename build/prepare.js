// `npm install`'s prepare step: builds the command line into dist/cli (build/cli.ts) for the fast
// start. Plain JavaScript, so it can run, and say why it skips, on an older system Node; and it
// never fails an install: without the build, bin/semaforo.js runs the sources (same behaviour,
// slower start) until `npm run build:cli` succeeds.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `semaforo: the command line was not built (this is Node ${process.version}; the build needs 22.12): ` +
      'run `npm run build:cli` once the node devDependency is installed\n',
  );
} else {
  const build = fileURLToPath(new URL('./cli.ts', import.meta.url));
  const r = spawnSync(process.execPath, [build], { stdio: 'inherit' });
  if (r.status !== 0)
    process.stderr.write(
      'semaforo: building the command line failed; it runs from the sources until `npm run build:cli` succeeds\n',
    );
}
