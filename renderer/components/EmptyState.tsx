import type { ReactNode } from 'react';

export function EmptyState({
  symbol = '○',
  title,
  children,
}: {
  symbol?: string;
  title: string;
  children?: ReactNode;
}) {
  return (
    <div className="state-box empty-state">
      <span className="state-symbol" aria-hidden="true">
        {symbol}
      </span>
      <p className="state-title">{title}</p>
      {children && <div className="state-body">{children}</div>}
    </div>
  );
}
