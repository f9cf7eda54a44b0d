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
      // glued short options, and -u's password written on it
      [['curl', '-uuser:hunter2', 'https://e.com'], 'curl -uuser:*** https://e.com'],
      [['mysql', '-uroot', '-pS3CR3T', 'db'], 'mysql -uroot -p*** db'],
      [['mysql', '-uroot', '-p', 'db'], 'mysql -uroot -p db'],
      // a token as a URL's whole userinfo
      [
        ['git', 'clone', 'https://ghp_SECRETPAT@github.com/org/repo.git'],
        'git clone https://***@github.com/org/repo.git',
      ],
      // git's extraHeader, as -c's setting or git config's value
      [
        ['git', '-c', 'http.extraHeader=Authorization: Bearer X', 'fetch'],
        'git -c http.extraHeader=Authorization: *** fetch',
      ],
      [
        ['git', 'config', 'http.https://e.com/.extraheader', 'Authorization: Basic eA=='],
        'git config http.https://e.com/.extraheader Authorization: ***',
      ],
      // headers: a Bearer/Basic value whatever the name, names with auth/session/… in them
      [
        ['curl', '-H', 'X-Custom: Bearer X', '-H', 'X-Other: Basic Y', 'u'],
        'curl -H X-Custom: *** -H X-Other: *** u',
      ],
      [
        ['curl', '-H', 'X-Auth: a', '-H', 'X-API-Token: b', '-H', 'X-Session-Id: c', 'u'],
        'curl -H X-Auth: *** -H X-API-Token: *** -H X-Session-Id: *** u',
      ],
      [
        ['http', 'e.com', 'X-API-Token:abc', 'X-Custom:Bearer abc', 'Accept:json'],
        'http e.com X-API-Token: *** X-Custom: *** Accept:json',
      ],
      [['http', 'e.com', 'token==abc', 'q==1'], 'http e.com token==*** q==1'],
      // curl's bearer, cookie and authorization options
      [
        ['curl', '--oauth2-bearer', 'X', '--bearer', 'Y', '--authorization', 'Z', 'u'],
        'curl --oauth2-bearer *** --bearer *** --authorization *** u',
      ],
      [
        ['curl', '-b', 'sid=X', '--cookie', 'sid=Y', '--cookie=sid=Z', '-bsid=W', 'u'],
        'curl -b *** --cookie *** --cookie=*** -b*** u',
      ],
      [['curl', '--cookie-jar', 'jar.txt', 'u'], 'curl --cookie-jar jar.txt u'],
      [['git', 'checkout', '-b', 'feature'], 'git checkout -b feature'],
      // -p and -a where they mean a password, and only there
      [['docker', 'login', '-u', 'me', '-p', 'X', 'reg.io'], 'docker login -u me -p *** reg.io'],
      [['docker', 'run', '-p', '8080:80', 'img'], 'docker run -p 8080:80 img'],
      [['sshpass', '-p', 'X', 'ssh', 'host'], 'sshpass -p *** ssh host'],
      [['http', '-a', 'user:pw', 'e.com'], 'http -a user:*** e.com'],
      [['ssh', '-p', '2222', 'host'], 'ssh -p 2222 host'],
      // variables, given to -e/--env or set by env
      [
        [
          'docker',
          'run',
          '-eAPI_TOKEN=x',
          '-e',
          'API_TOKEN=y',
          '--env',
          'DB_PASS=z',
          'img',
          '--env=MY_KEY=w',
        ],
        'docker run -eAPI_TOKEN=*** -e API_TOKEN=*** --env DB_PASS=*** img --env=MY_KEY=***',
      ],
      [['env', 'MYSQL_PWD=x', 'OLDPWD=/a', 'mysql'], 'env MYSQL_PWD=*** OLDPWD=/a mysql'],
      // the same inside a script
      [
        ['sh', '-c', 'curl -HAuthorization:SECRET -uuser:pw -b sid=X https://tok@e.com/#access_token=X'],
        'sh -c curl -HAuthorization: *** -uuser:*** -b *** https://***@e.com/#access_token=***',
      ],
      [
        [
          'sh',
          '-c',
          `docker login -p X r.io && sshpass -p Y ssh h; http -a u:pw e.com 'X-Api-Token: t' X-Custom:"Bearer x"`,
        ],
        `sh -c docker login -p *** r.io && sshpass -p *** ssh h; http -a u:*** e.com 'X-Api-Token: ***' X-Custom:"***"`,
      ],
      [
        ['sh', '-c', `git -c http.extraHeader="Authorization: Bearer X" fetch; MYSQL_PWD=x mysql -pY`],
        `sh -c git -c http.extraHeader="Authorization: ***" fetch; MYSQL_PWD=*** mysql -p***`,
      ],
      [
        ['sh', '-c', 'docker run -eAPI_KEY=z --env=DB_PASS=y i; ssh -p 22 h; http e.com token==t'],
        'sh -c docker run -eAPI_KEY=*** --env=DB_PASS=*** i; ssh -p 22 h; http e.com token==***',
      ],
      // query and fragment parameters
      [
        [
          'curl',
          'https://e.com/cb#access_token=a&x=1',
          'https://e.com/a?jwt=b&session=c',
          'https://e.com/a;jsessionid=d',
        ],
        'curl https://e.com/cb#access_token=***&x=1 https://e.com/a?jwt=***&session=*** https://e.com/a;jsessionid=***',
      ],
      // an option written with = holds its value: the next word is kept
      [
        ['wget', '--password=SECRETW', 'https://example.com/file.tgz'],
        'wget --password=*** https://example.com/file.tgz',
      ],
      [
        ['curl', '--header=Authorization: Bearer x', 'https://e.com'],
        'curl --header=Authorization: *** https://e.com',
      ],
      [
        ['curl', '--user=u:p', '--env=MY_KEY=w', 'https://e.com'],
        'curl --user=u:*** --env=MY_KEY=*** https://e.com',
      ],
      // nothing to hide
      [['rsync', '-a', 'src/', 'dst/'], 'rsync -a src/ dst/'],
      [['du -sh * | sort -h'], 'du -sh * | sort -h'],
    ];
    for (const [words, name] of cases) expect.soft(commandLabel(words), words.join(' ')).toBe(name);
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
