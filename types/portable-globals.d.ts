/**
 * The few globals shared/ may use: those browsers and Node both define the same way. Only
 * tsconfig.shared.json includes this file, so shared/ is checked with neither DOM nor Node types;
 * every other layer gets these from its own (lib.dom, @types/node).
 */
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly pathname: string;
  readonly searchParams: { get(name: string): string | null };
}
