/**
 * The HTTP transport's credentials. `semaforo serve` prints `http://HOST:PORT/#token=TOKEN`: the
 * fragment never reaches the server's logs. The page takes the token out of the address bar (so
 * it is not left in history or copied along with a link) and trades it for the server's HttpOnly
 * session cookie, so a deep link opened in a new tab (`#/tasks/243`) needs no token.
 */
export function takeToken(location: Location, history: History): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  return decodeURIComponent(match[1]!);
}

export type SessionState = 'open' | 'refused' | 'unreachable';

/**
 * Opens (or confirms) the session: with the token when the address had one, else with the cookie
 * this browser already holds. 'refused' means neither is valid: the page must ask for the link.
 */
export async function openSession(baseUrl: string, token: string | null): Promise<SessionState> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/$/, '')}/api/session`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: 'null',
    });
    if (res.status === 401) return 'refused';
    return res.ok ? 'open' : 'unreachable';
  } catch {
    return 'unreachable';
  }
}
