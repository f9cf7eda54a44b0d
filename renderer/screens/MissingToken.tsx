/** Shown when the page was opened without the token `semaforo serve` prints. */
export function MissingToken() {
  return (
    <main className="missing-token">
      <h1>Semaforo</h1>
      <p>This dashboard needs the address with its access token.</p>
      <p>
        Open the <strong>Dashboard:</strong> link that <code>semaforo serve</code> printed when it started (it
        ends in <code>#token=…</code>).
      </p>
    </main>
  );
}
