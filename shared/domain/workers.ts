/** Who holds which leases: the Workers screen and `semaforo workers`. */

/** A running task as the Workers screen lists it under its lease owner. */
export interface LeasedTask {
  id: number;
  name: string;
  group: string;
  kind: string;
  startedAt: number | null;
  leaseExpiresAt: number | null;
}

/** One lease owner (a worker in some process) and the running tasks it holds. */
export interface WorkerLeases {
  /** the worker id, as in `Task.leaseOwner` */
  id: string;
  /** null for rows written by a version that did not record them */
  host: string | null;
  pid: number | null;
  /** when it started the oldest task it still holds */
  since: number | null;
  /** oldest start first */
  tasks: LeasedTask[];
}
