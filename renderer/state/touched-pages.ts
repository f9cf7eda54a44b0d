/**
 * Which pages of the Tasks list a change event makes stale. A change names the tasks it touched
 * (or nobody knows: another process wrote); a touched task can change in place, leave the list
 * (rows after it shift up) or enter it (rows after it shift down), so every page from the first
 * affected one on is stale, and those before it are not. Where an unseen task would sit is known
 * only when the list is in id order (sorted by creation): then a task created after the view, or
 * an old one out of sight, costs no refetch at all.
 */
export interface TouchedPagesInput {
  /** pages in view, ascending and contiguous */
  inView: readonly number[];
  /** the rows of the pages loaded so far */
  loaded: ReadonlyMap<number, readonly { id: number }[] | undefined>;
  /** the tasks the change named; null when unknown */
  touched: ReadonlySet<number> | null;
  /** the list's id order when it is sorted by creation, else null */
  idOrder: 'asc' | 'desc' | null;
  /** rows per full page: a shorter one is the list's end */
  pageSize: number;
}

/** The first page the change affects (Infinity: none of those in view or before them). */
export function firstAffectedPage(input: TouchedPagesInput): number {
  const { inView, loaded, touched, idOrder } = input;
  const firstInView = inView[0] ?? 0;
  if (!touched || touched.size === 0) return 0;
  let from = Infinity;
  for (const id of touched) {
    let at = Infinity;
    for (const [page, rows] of loaded) if (page < at && rows?.some((r) => r.id === id)) at = page;
    if (at === Infinity) at = idOrder === null ? firstInView : placeOf(id, input, idOrder);
    from = Math.min(from, at);
    if (from <= firstInView) break;
  }
  return from;
}

/** The page an unseen task would sit on in an id-ordered list, or Infinity past the view. */
function placeOf(id: number, { inView, loaded, pageSize }: TouchedPagesInput, order: 'asc' | 'desc'): number {
  for (const page of inView) {
    const rows = loaded.get(page);
    const last = rows?.at(-1);
    // Not loaded yet, or the list's end (a page not full): it would land here.
    if (!rows || !last || rows.length < pageSize) return page;
    if (order === 'desc' ? id > last.id : id < last.id) return page;
  }
  return Infinity;
}
