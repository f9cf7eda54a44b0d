/** A list of statuses as SQL text for `status IN (...)`; the lists come from the policy modules. */
export function sqlList(values: readonly string[]): string {
  return values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
}
