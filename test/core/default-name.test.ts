/** A task's default name: its command line or URL as a label, without the credentials in it. */
import { describe, expect, it } from 'vitest';
import { commandLabel, DEFAULT_NAME_MAX, defaultTaskName } from '../../electron/core/policy/default-name.ts';

describe('the default name of a task', () => {
  it('hides credentials in a command line and keeps the rest as typed', () => {
    const cases: [string[], string][] = [
      // headers: the secret ones by name, others kept
      [
        ['curl', '-H', 'Authorization: Bearer abc123', 'https://api.example.com/x'],
        'curl -H Authorization: *** https://api.example.com/x',
      ],
      [
        ['curl', '-H', 'Accept: application/json', '--header', 'X-Api-Key: k1', 'https://e.com'],
        'curl -H Accept: application/json --header X-Api-Key: *** https://e.com',
      ],
      [
        ['curl', '--header=Cookie: session=s3cr3t', 'https://e.com'],
        'curl --header=Cookie: *** https://e.com',
      ],
      [['curl', '-H', 'proxy-authorization: Basic dXNlcg==', 'x'], 'curl -H proxy-authorization: *** x'],
      [['curl', '-H', 'X-Auth-Token: t', 'x'], 'curl -H X-Auth-Token: *** x'],
      [['curl', '-HAuthorization: Bearer abc', 'x'], 'curl -HAuthorization: *** x'],
      [
        ['http', 'GET', 'https://e.com', 'Authorization:Bearer abc'],
        'http GET https://e.com Authorization: ***',
      ],
      // a user and password: the user kept
      [['curl', '-u', 'alice:hunter2', 'https://e.com'], 'curl -u alice:*** https://e.com'],
      [['curl', '--user=alice:hunter2', 'https://e.com'], 'curl --user=alice:*** https://e.com'],
      [['curl', '-u', 'alice', 'https://e.com'], 'curl -u alice https://e.com'],
      // options named for a secret, with their value apart or after =
      [['deploy', '--token', 'abc', '--env', 'prod'], 'deploy --token *** --env prod'],
      [['deploy', '--password=abc', '--api-key', 'k', '-v'], 'deploy --password=*** --api-key *** -v'],
      [
        ['docker', 'login', '--password-stdin', '-u', 'me', 'reg.io'],
        'docker login --password-stdin -u me reg.io',
      ],
      [['gpg', '--passphrase-file', '/etc/pass', 'x'], 'gpg --passphrase-file /etc/pass x'],
      // variables named for a secret
      [['env', 'GITHUB_TOKEN=ghp_x', 'PWD=/tmp', './sync.sh'], 'env GITHUB_TOKEN=*** PWD=/tmp ./sync.sh'],
      // URLs: the password of their userinfo, secret query parameters
      [
        ['curl', 'https://user:pw@api.example.com/x?token=abc'],
        'curl https://user:***@api.example.com/x?token=***',
      ],
      [
        ['curl', 'https://e.com/x?q=1&api_key=z&apikey=y&page=2&sig=s&Signature=t&secret=u&password=v&key=w'],
        'curl https://e.com/x?q=1&api_key=***&apikey=***&page=2&sig=***&Signature=***&secret=***&password=***&key=***',
      ],
      [['psql', 'postgres://me:pw@db/x?sslmode=require'], 'psql postgres://me:***@db/x?sslmode=require'],
      // scripts: `sh -c '…'` and a --shell command line are read as shell text
      [
        ['sh', '-c', `curl -fsS -H "Authorization: Bearer abc" 'https://u:p@h.io/a?sig=x&b=1' | jq .`],
        `sh -c curl -fsS -H "Authorization: ***" 'https://u:***@h.io/a?sig=***&b=1' | jq .`,
      ],
      [
        ['bash', '-lc', `API_KEY='abc def' ./run.sh --secret s3 --name n -u bob:pw`],
        `bash -lc API_KEY='***' ./run.sh --secret *** --name n -u bob:***`,
      ],
      [[`TOKEN=abc ./x --key=k | tee log`], 'TOKEN=*** ./x --key=*** | tee log'],
      [[`curl -H'Cookie: a=b' https://e.com`], `curl -H'Cookie: ***' https://e.com`],
      // nothing to hide
      [['rsync', '-a', 'src/', 'dst/'], 'rsync -a src/ dst/'],
      [['du -sh * | sort -h'], 'du -sh * | sort -h'],
    ];
    for (const [words, name] of cases) expect(commandLabel(words), words.join(' ')).toBe(name);
  });

  it('cuts a long name to a label, with an ellipsis, never inside an emoji', () => {
    const long = commandLabel(['echo', 'a'.repeat(300)]);
    expect(long).toHaveLength(DEFAULT_NAME_MAX);
    expect(long).toBe(`echo ${'a'.repeat(DEFAULT_NAME_MAX - 6)}…`);
    const emoji = commandLabel([`a${'😀'.repeat(150)}`]);
    expect(emoji.length).toBeLessThanOrEqual(DEFAULT_NAME_MAX);
    expect(emoji).not.toMatch(/\p{Cs}/u);
    expect(emoji.endsWith('😀…')).toBe(true);
    expect(commandLabel(['echo', 'short'])).toBe('echo short');
  });

  it('names an http task by its method, host and path only, and other kinds by their kind', () => {
    expect(defaultTaskName('http', { method: 'post', url: 'https://u:p@api.example.com/v1/r?token=x' })).toBe(
      'POST api.example.com/v1/r',
    );
    expect(
      defaultTaskName('shell', { command: 'curl', args: ['-u', 'me:pw', 'https://e.com'], shell: false }),
    ).toBe('curl -u me:*** https://e.com');
    expect(defaultTaskName('sleep', { ms: 5 })).toBe('sleep');
  });
});
