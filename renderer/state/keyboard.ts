import type React from 'react';
/** Whether a key press belongs to a text field (so single-key shortcuts must leave it alone). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(type);
}

/**
 * Arrow keys move focus between the `[data-row]` elements inside the element this handler is on
 * (lists that are not virtualised: failures, groups).
 */
export function arrowFocus(e: React.KeyboardEvent<HTMLElement>): void {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
  if (isTyping(e.target)) return;
  const rows = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-row]')];
  if (rows.length === 0) return;
  const at = rows.findIndex((r) => r === document.activeElement || r.contains(document.activeElement));
  const next =
    e.key === 'Home'
      ? 0
      : e.key === 'End'
        ? rows.length - 1
        : Math.max(0, Math.min(rows.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)));
  e.preventDefault();
  rows[next]!.focus();
}
