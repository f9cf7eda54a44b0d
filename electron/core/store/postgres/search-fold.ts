/**
 * How the list's search folds case on this database. lower() folds as the database's LC_CTYPE
 * says: on a database created with LC_CTYPE C it folds ASCII only, so `élan` would miss `Élan`.
 * There the server's ICU root collation folds every script instead (lower() with an ICU collation
 * uses ICU's case mapping, whatever the database's locale). ICU is asked for only where needed:
 * it folds about 1.6 times slower than a UTF-8 libc locale (100,000 names). A server built
 * without ICU on a C database keeps lower()'s ASCII folding: the one case that does not hold.
 */
import type { Db } from './db.ts';

const ICU = ' COLLATE pg_catalog."und-x-icu"';

/** Per pool: the database's locale does not change under a running store. */
const probes = new WeakMap<Db, Promise<string>>();

/** The COLLATE clause to put on both sides of `lower(...) LIKE lower(...)`: '' or ICU's. */
export function searchCollation(db: Db): Promise<string> {
  let probe = probes.get(db);
  if (!probe) {
    probe = ask(db);
    probes.set(db, probe);
    // a failed probe (a lost connection) is asked again next time
    probe.catch(() => probes.delete(db));
  }
  return probe;
}

async function ask(db: Db): Promise<string> {
  const [row] = await db.query<{ folds: unknown; icu: unknown }>(
    `SELECT lower('ÉÖЖ') = 'éöж' AS folds,
       EXISTS (SELECT 1 FROM pg_collation
               WHERE collname = 'und-x-icu' AND collnamespace = 'pg_catalog'::regnamespace) AS icu`,
  );
  return row?.folds !== true && row?.icu === true ? ICU : '';
}
