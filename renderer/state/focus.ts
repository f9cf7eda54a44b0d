/**
 * Focus that goes back where it came from: a dialog or a panel that closes while it holds focus
 * would otherwise drop it on <body>, and a keyboard user starts again from the top.
 */

/** Focuses `opener` again if it is still on the page and focus is lost (on <body>) or inside `from`. */
export function restoreFocus(opener: Element | null, from?: Element | null): void {
  if (!(opener instanceof HTMLElement) || !opener.isConnected) return;
  const active = document.activeElement;
  const lost = active === null || active === document.body || (from?.contains(active) ?? false);
  if (lost) opener.focus({ preventScroll: true });
}
