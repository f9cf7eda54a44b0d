import { describe, expect, it } from 'vitest';
import { backendOf, describeQueue } from '../../shared/queue-place.ts';

describe('which store a queue is on', () => {
  it('tells a PostgreSQL URL from a file path', () => {
    expect(backendOf('postgres://u@h/db')).toBe('postgres');
    expect(backendOf('postgresql://u@h/db')).toBe('postgres');
    expect(backendOf('/home/ana/.semaforo/queue.db')).toBe('sqlite');
    expect(backendOf('./postgres://odd-file-name')).toBe('sqlite');
  });

  it('says it in one line, a file under the home folder with ~', () => {
    expect(describeQueue({ backend: 'sqlite', location: '/home/ana/.semaforo/queue.db' }, '/home/ana')).toBe(
      'SQLite file ~/.semaforo/queue.db',
    );
    expect(describeQueue({ backend: 'sqlite', location: '/home/anabel/q.db' }, '/home/ana')).toBe(
      'SQLite file /home/anabel/q.db',
    );
    expect(
      describeQueue({ backend: 'postgres', location: 'postgres://ops@db.lan:5432/jobs?schema=nightly' }),
    ).toBe('PostgreSQL ops@db.lan:5432/jobs (schema nightly)');
    expect(describeQueue({ backend: 'postgres', location: 'postgres://db.lan/jobs' })).toBe(
      'PostgreSQL db.lan/jobs',
    );
  });
});
