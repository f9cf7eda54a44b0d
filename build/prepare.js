// `npm install`'s and `npm ci`'s prepare step, in plain JavaScript so that any Node can run it:
// it builds the CLI (build/cli.ts) where this Node runs TypeScript, and otherwise says so once
// and leaves the CLI to run from its sources. An install without devDependencies
// (`npm ci --omit=dev`) runs it on the system's Node, which may be older than the Node 22 the
// devDependencies bring.
if (!process.features.typescript) {
  process.stdout.write(
    `semaforo: the CLI is not built (Node ${process.version} runs no TypeScript; ` +
      'the devDependencies bring one that does), so it runs from its sources\n',
  );
  process.exit(0);
}
process.argv.push('--if-possible');
await import('./cli.ts');
