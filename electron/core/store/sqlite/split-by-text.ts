/**
 * Consecutive parts of `items` for lists written as one JSON text: each part holds at most
 * `maxItems` items and, unless it is a single item, at most `maxChars` of text as `charsOf`
 * counts it, so that no text nears V8's string limit or SQLite's value limit. `items` itself
 * when it fits whole; no part for no items.
 */
export function splitByText<T>(
  items: readonly T[],
  charsOf: (item: T) => number,
  maxChars: number,
  maxItems = Number.POSITIVE_INFINITY,
): (readonly T[])[] {
  const parts: (readonly T[])[] = [];
  let from = 0;
  let chars = 0;
  for (let i = 0; i < items.length; i++) {
    const c = charsOf(items[i]!);
    if (i > from && (i - from >= maxItems || chars + c > maxChars)) {
      parts.push(items.slice(from, i));
      from = i;
      chars = 0;
    }
    chars += c;
  }
  if (items.length > 0) parts.push(from === 0 ? items : items.slice(from));
  return parts;
}
