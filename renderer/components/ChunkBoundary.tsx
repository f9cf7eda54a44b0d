import { Component, Suspense, type ReactNode } from 'react';
import { LoadingState } from './LoadingState.tsx';

/**
 * A part of the dashboard loaded on demand (a lazy chunk), with what to show when its file could
 * not be fetched: the server went away mid-load. Without this, React unmounts the whole window;
 * here the part says so, and "Try again" reloads the page (a failed import is not retried by React).
 */
export class ChunkBoundary extends Component<
  { loading: string; what: string; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    if (this.state.failed)
      return (
        <div className="state-box error-state tone-red" role="alert">
          <span className="state-symbol" aria-hidden="true">
            ✕
          </span>
          <p className="state-title">Could not load {this.props.what}</p>
          <p className="state-body">cannot reach the Semaforo server: is semaforo serve still running?</p>
          <button type="button" onClick={() => window.location.reload()}>
            Try again
          </button>
        </div>
      );
    return <Suspense fallback={<LoadingState label={this.props.loading} />}>{this.props.children}</Suspense>;
  }
}
