import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// Placeholder entry so the Vite build is wired from day one; the dashboard replaces it.
function App() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: '2rem' }}>
      <h1>Semaforo</h1>
      <p>
        The dashboard arrives with the dashboard issue; use <code>npx semaforo</code> meanwhile.
      </p>
    </main>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('renderer/index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
