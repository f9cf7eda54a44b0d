/**
 * `text` cut to at most `max` UTF-16 units, the cut marked with an ellipsis and never inside a
 * surrogate pair: a label (a tray line, a default task name, a failure's first line) loses its
 * end, not half an emoji, which a name's check would then refuse.
 */
export function ellipsize(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
