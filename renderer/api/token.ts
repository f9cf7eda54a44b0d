/**
 * The HTTP transport's token. `semaforo serve` prints `http://HOST:PORT/#token=TOKEN`: the fragment
 * never reaches the server's logs. We keep the token for this tab only (sessionStorage) and take
 * it out of the address bar, so it is not left in history or copied along with a link.
 */
const KEY = 'semaforo.token';

export function takeToken(location: Location, storage: Storage, history: History): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]!);
    storage.setItem(KEY, token);
    history.replaceState(history.state, '', location.pathname + location.search);
    return token;
  }
  return storage.getItem(KEY);
}
