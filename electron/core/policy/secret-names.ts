/**
 * Which names say their value is a credential, for hide-secrets.ts: options, headers, variables
 * and query parameters each have their own test, since a word that names a secret in one place
 * (`PWD`, `-p`, `-b`) is harmless in another. Where unsure they say "secret": a label loses little.
 */

export const HIDDEN = '***';

/** Names that say their value is a secret wherever they appear. */
const SECRET_WORD = /token|key|secret|passw(?:or)?d|passphrase|credential|signature/i;
/** Short names that do too as an option or query parameter (not as a variable: `PWD`). */
const SECRET_SHORT = /^(?:sig|auth|pass|pwd)$/i;
/** Options for a credential beyond those: curl's --oauth2-bearer, --bearer, --cookie, --authorization. */
const SECRET_OPTION = /bearer|^cookie$|^authorization$/i;
/** Options that name a secret without holding one: where it is read from, or turning it off. */
const NOT_A_VALUE = /^no-|-(?:file|path|stdin|env|fd|jar)$/i;
const SECRET_HEADER = /auth|token|key|secret|pass|session|cookie|credential|signature/i;
/** A header value that is a credential whatever the header's name (`X-Custom: Bearer …`). */
const SECRET_SCHEME = /^\s*(?:bearer|basic|digest|token)\s/i;
const SECRET_VARIABLE = /pass|pwd|auth/i;
const WORKING_DIRECTORY = /^(?:OLD)?PWD$/;
const SECRET_PARAM = /session|jwt/i;

export const HEADER_OPTIONS = new Set(['-H', '--header', '--proxy-header']);
export const USER_OPTIONS = new Set(['-u', '--user', '-U', '--proxy-user']);

/** What an option's value is: a header, `user:password`, or a secret as a whole. */
export type ValueKind = 'header' | 'user' | 'secret';

/** The programs a command has named so far (basenames), for options whose meaning is theirs. */
export type Programs = ReadonlySet<string>;

interface ShortRule {
  option: string;
  kind: ValueKind;
  applies: (programs: Programs) => boolean;
  /** `mysql -p` alone asks for the password, and the next word is the database */
  gluedOnly?: boolean;
}

const anyOf =
  (...names: string[]) =>
  (programs: Programs) =>
    names.some((n) => programs.has(n));
const REGISTRIES = anyOf('docker', 'podman', 'nerdctl', 'buildah', 'skopeo', 'helm', 'oras');

/** Short options that hold a credential only for some programs (`-p` is a port for ssh). */
const SHORT_RULES: readonly ShortRule[] = [
  { option: '-b', kind: 'secret', applies: anyOf('curl') },
  { option: '-p', kind: 'secret', applies: anyOf('sshpass') },
  { option: '-p', kind: 'secret', applies: (p) => p.has('login') && REGISTRIES(p) },
  {
    option: '-p',
    kind: 'secret',
    applies: anyOf('mysql', 'mariadb', 'mysqldump', 'mysqladmin'),
    gluedOnly: true,
  },
  { option: '-a', kind: 'user', applies: anyOf('http', 'https', 'httpie', 'xh', 'xhs') },
];

/** A long option named for a secret (`--token`, `--password`, `--oauth2-bearer`). */
function secretLongOption(option: string): boolean {
  if (!option.startsWith('--')) return false;
  const name = option.slice(2);
  return (
    (SECRET_WORD.test(name) || SECRET_SHORT.test(name) || SECRET_OPTION.test(name)) && !NOT_A_VALUE.test(name)
  );
}

/**
 * What `option`'s value is, or null when it is not a credential. `glued`: the value is written
 * on the option (`-pSECRET`), which some programs' options need to take one at all.
 */
export function optionKind(option: string, programs: Programs, glued: boolean): ValueKind | null {
  if (HEADER_OPTIONS.has(option)) return 'header';
  if (USER_OPTIONS.has(option)) return 'user';
  if (secretLongOption(option)) return 'secret';
  const rule = SHORT_RULES.find((r) => r.option === option && (glued || !r.gluedOnly) && r.applies(programs));
  return rule?.kind ?? null;
}

/** A header whose value is a credential, by its name or by the value's scheme. */
export function isSecretHeader(name: string, value: string): boolean {
  return SECRET_HEADER.test(name) || SECRET_SCHEME.test(value);
}

/** A variable (`API_TOKEN=…`, `MYSQL_PWD=…`) that holds a credential; `PWD` itself does not. */
export function isSecretVariable(name: string): boolean {
  return SECRET_WORD.test(name) || (SECRET_VARIABLE.test(name) && !WORKING_DIRECTORY.test(name));
}

/** A query or fragment parameter (`?token=`, `#access_token=`, `;jsessionid=`) that does. */
export function isSecretParam(name: string): boolean {
  return SECRET_WORD.test(name) || SECRET_SHORT.test(name) || SECRET_PARAM.test(name);
}

/** The program a word names, as SHORT_RULES know it (`/usr/bin/curl` -> `curl`). */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1).replace(/['"]/g, '');
}
