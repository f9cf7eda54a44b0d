/** The server guard's decisions (guard.ts): which hosts, origins and tokens it accepts. */
import { describe, expect, it } from 'vitest';
import { checkHost, checkOrigin, checkToken, loopbackHosts } from '../../electron/server/guard.ts';

describe('guard decisions', () => {
  it('accept loopback hosts on our port, same-origin pages and the exact token only', () => {
    const config = { token: 'a'.repeat(64), allowedHosts: loopbackHosts(7391) };
    expect(checkHost('127.0.0.1:7391', config).ok).toBe(true);
    expect(checkHost('LOCALHOST:7391', config).ok).toBe(true);
    expect(checkHost('127.0.0.1:80', config).ok).toBe(false);
    expect(checkHost(undefined, config).ok).toBe(false);
    expect(checkOrigin(undefined, '127.0.0.1:7391').ok).toBe(true);
    expect(checkOrigin('http://127.0.0.1:7391', '127.0.0.1:7391').ok).toBe(true);
    expect(checkOrigin('null', '127.0.0.1:7391').ok).toBe(false);
    expect(checkToken('a'.repeat(64), config).ok).toBe(true);
    expect(checkToken('a'.repeat(63), config)).toMatchObject({ ok: false, status: 401 });
    expect(checkToken(null, config)).toMatchObject({ ok: false, status: 401 });
  });
});
