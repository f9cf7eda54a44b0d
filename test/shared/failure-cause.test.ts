/**
 * Failure causes read from stored errors as the handlers write them (shell: the quoted command,
 * then `exited with code N: <last stderr line>`; http: `METHOD URL -> STATUS …`), on the failures
 * a real queue collects: curl, a Python traceback, pg_dump, rsync, HTTP 500 and 401, timeouts.
 */
import { describe, expect, it } from 'vitest';
import { failureCause, failureKey, maskVarying } from '../../shared/failure-cause.ts';

const shell = (command: string, code: number, why: string) => `"${command}" exited with code ${code}: ${why}`;
const keyOf = (kind: string, error: string) => failureKey(kind, failureCause(error));

describe('failure causes', () => {
  it('makes twelve curl connection failures to different URLs one cause, titled by exit code and stderr', () => {
    const errors = Array.from({ length: 12 }, (_, i) =>
      shell(
        `curl -fsS https://partner${i % 3}.example.com/v1/orders/${1000 + i}?page=${i}`,
        7,
        `curl: (7) Failed to connect to partner${i % 3}.example.com port 443 after ${i * 7 + 2} ms: Couldn't connect to server`,
      ),
    );
    expect(new Set(errors.map((e) => keyOf('shell', e))).size).toBe(1);
    const c = failureCause(errors[0]!);
    expect(c.code).toBe('exit 7');
    expect(c.line).toMatch(/^curl: \(7\) Failed to connect to partner0\.example\.com port 443/);
    expect(c.command).toBe('curl -fsS https://partner0.example.com/v1/orders/1000?page=0');
    // Another exit code of curl is another cause.
    const refused = shell(
      'curl -fsS https://partner0.example.com/v1/x',
      22,
      'curl: (22) The requested URL returned error: 404',
    );
    expect(keyOf('shell', refused)).not.toBe(keyOf('shell', errors[0]!));
  });

  it('shows the KeyError of a multi-line python3 -c command, not its first line', () => {
    const script = "import json, sys\nrow = json.load(sys.stdin)\nprint(row['customer_id'])";
    const error = shell(`sh -c python3 -c "${script}"`, 1, "KeyError: 'customer_id'");
    const c = failureCause(error);
    expect(c).toMatchObject({ code: 'exit 1', line: "KeyError: 'customer_id'" });
    expect(c.command).toBe(`sh -c python3 -c "${script}"`);
    // The same script failing on another key is another cause.
    expect(keyOf('shell', error)).not.toBe(
      keyOf('shell', shell(`sh -c python3 -c "${script}"`, 1, "KeyError: 'order_id'")),
    );
  });

  it('groups pg_dump and rsync failures across dates, hosts, addresses and versions', () => {
    const pg = (day: number, ip: string) =>
      shell(
        `pg_dump -h db.internal -U backup -Fc shop -f /backups/shop-2026-12-0${day}.dump`,
        1,
        `pg_dump: error: connection to server at "db.internal" (${ip}), port 5432 failed: FATAL:  password authentication failed for user "backup"`,
      );
    expect(keyOf('shell', pg(3, '10.0.0.5'))).toBe(keyOf('shell', pg(4, '10.0.0.6')));
    expect(failureCause(pg(3, '10.0.0.5')).line).toMatch(/^pg_dump: error: connection to server/);

    const rsync = (code: number, line: number) =>
      shell(
        'rsync -a /srv/www/ backup@nas.local:/volume1/www/',
        code,
        `rsync error: some files/attrs were not transferred (see previous errors) (code ${code}) at main.c(${line}) [sender=3.2.7]`,
      );
    expect(keyOf('shell', rsync(23, 1338))).toBe(keyOf('shell', rsync(23, 1339)));
    expect(keyOf('shell', rsync(23, 1338))).not.toBe(keyOf('shell', rsync(12, 1338)));
  });

  it('keeps HTTP 500 and 401 apart and masks ids and paths in their bodies', () => {
    const err500 = (order: number, id: string) =>
      `POST https://api.partner.example/v1/orders/${order} -> 500 Internal Server Error: {"error":"upstream timeout","request_id":"${id}"}`;
    const a = err500(8812, '9f1c2e7a-1b2c-4d5e-8f90-123456789abc');
    const b = err500(9913, '0a1b2c3d-4e5f-4a6b-8c7d-0123456789ab');
    expect(keyOf('http', a)).toBe(keyOf('http', b));
    expect(failureCause(a)).toMatchObject({
      code: 'HTTP 500',
      command: 'POST https://api.partner.example/v1/orders/8812',
      line: expect.stringMatching(/^500 Internal Server Error: \{"error":"upstream timeout"/),
    });
    const unauthorized =
      'GET https://api.vendor.example/v2/invoices -> 401 Unauthorized: {"message":"token expired"}';
    expect(failureCause(unauthorized).code).toBe('HTTP 401');
    expect(keyOf('http', unauthorized)).not.toBe(keyOf('http', a));
  });

  it('groups timeouts and connection failures whatever the numbers, and keeps plain errors whole', () => {
    expect(keyOf('shell', 'timed out after 30000 ms')).toBe(keyOf('shell', 'timed out after 45000 ms'));
    const slow = (n: number) =>
      `GET https://status.vendor.example/health/${n}: no complete response within 10000 ms`;
    expect(failureCause(slow(1))).toMatchObject({ code: null, line: 'no complete response within 10000 ms' });
    expect(keyOf('http', slow(1))).toBe(keyOf('http', slow(2)));
    const refused = 'GET http://127.0.0.1:8080/hook failed: connect ECONNREFUSED 127.0.0.1:8080';
    expect(failureCause(refused)).toMatchObject({ line: 'connect ECONNREFUSED 127.0.0.1:8080' });
    expect(failureCause('"false" exited with code 1')).toMatchObject({
      code: 'exit 1',
      line: 'no error output',
    });
    expect(failureCause('"sleep 100" was killed by SIGKILL')).toMatchObject({
      code: 'SIGKILL',
      command: 'sleep 100',
    });
    expect(failureCause(null).line).toBe('no error message');
    expect(failureCause('Error: boom\n    at run (/app/x.js:3:9)').line).toBe('Error: boom');
  });

  it('masks numbers, ids, URLs, hosts and paths, and keeps words and quoted names', () => {
    expect(maskVarying("open /var/data/2026-12-04.csv: permission denied for 'report'")).toBe(
      "open <path> permission denied for 'report'",
    );
    expect(maskVarying('job 5f3a9c1e7b2d failed at https://x.example/a?b=1')).toBe(
      'job <id> failed at <url>',
    );
  });
});
