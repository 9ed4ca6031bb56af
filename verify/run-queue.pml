/*
 * The run queue protocol of src/queue/ and src/runs/, as a Promela model.
 * almanac/architecture/queue-model.md maps each step below to the function it stands for,
 * says what the model leaves out, and what each variant shows. Run verify/check-model.sh.
 *
 * One atomic block is one BEGIN IMMEDIATE transaction (or one read) of RunStore or
 * LockStore. Producers, workers and executors are separate processes, as in the product.
 * Up to MAX_CRASHES workers or executors die, each before any of its steps or while it
 * waits: a dead worker leaves its lock row and its runs as they were, and its executor
 * lives on (executors are detached). A Staller lets a live lock holder's heartbeat go
 * stale (SIGSTOP, a sleeping laptop, a blocked event loop), so its lock may be taken over
 * while it still runs.
 *
 * Checked: the queue invariants I1-I3 (almanac/architecture/run-queue.md lists I1-I8),
 * in the project's wording:
 *   I1 "No stranded run. Suppose a run is queued. Then either a live worker owns the lock
 *      and will look at the queue again before it releases, or the lock is free and a
 *      worker has been spawned since the run was inserted."
 *      -> once every process has ended, no run is still queued unless the worker it was
 *         counting on died (see die()); and after the crashes, one `jobs` read (reap,
 *         then wake) leaves every run done or failed.
 *   I2 "At most one executor per run, ever. The claim queued -> running happens once."
 *      -> no run is claimed twice.
 *   I3 "At most one draining worker at a time (the seeds keep a single consumer)."
 *      -> when an executor claims a run, no other live executor is working on one
 *         (between its claim and its run's last write): the work of two draining workers
 *         would overlap there. A claim is the only step that starts such work, so
 *         checking at the claim checks every state.
 *
 * Negative variants, each removing one piece of the protocol; each must fail:
 *   -DNO_HANDOFF      the idle release deletes the lock without looking at the queue again
 *   -DNO_ADOPT        a new lock holder does not wait for running runs with a live executor
 *   -DNO_TOKEN_CHECK  the executor's claim does not compare the lock token
 * -DJOBS_READ adds a `jobs` read that reaps and wakes while the queue drains.
 */

#ifndef RUNS
#define RUNS 2                        /* runs, one producer each */
#endif
#ifndef MAX_CRASHES
#define MAX_CRASHES 2
#endif
#ifndef MAX_STALLS
#define MAX_STALLS 1
#endif

#define WORKERS (RUNS + 2)            /* one per producer, one per `jobs` read */
#define EXECUTORS (2 * RUNS + 2)      /* dispatches in one behaviour (asserted, never cut) */
#define PROCS (1 + WORKERS + EXECUTORS)
#define FIRST_EXECUTOR (1 + WORKERS)
#define NONE 255

/* runs.status; ABSENT = not inserted yet */
#define ABSENT 0
#define QUEUED 1
#define RUNNING 2
#define DONE 3
#define FAILED 4

/* an executor's exit as the worker sees it (0: it exited by itself) */
#define EXIT_NOT_MINE 3               /* EXIT_NOT_MINE in src/queue/ports.ts */
#define EXIT_KILLED 9

/* ---- the ledger: runs (run i is inserted by producer i, after run i - 1) ---- */
byte st[RUNS];                        /* runs.status */
byte rexec[RUNS];                     /* runs.execution_id: the executor that claimed it */
byte i2_claims[RUNS];                 /* successful claims of each run */
bool excused[RUNS];                   /* a worker died that this run was counting on */

/* ---- the ledger: worker_lock ---- */
byte lock = 0;                        /* worker_lock.token: 0 = no row, else the holder's id */
bool stale = false;                   /* worker_lock.heartbeat_at older than staleAfterMs */

/* ---- processes: ids 1..WORKERS are workers, then executors ---- */
bool alive[PROCS];                    /* the pid still runs with its recorded start time */
bool lost[PROCS];                     /* QueueWorker.ownershipLost */
byte xcode[PROCS];                    /* an executor's exit */
bool working[PROCS];                  /* an executor between its claim and its run's end */
byte workers_spawned = 0;
byte executors_spawned = 0;
byte crashes = 0;
byte stalls = 0;

/* the set of runs inserted so far, as a bit mask (runs are 2 or 3) */
#define INSERTED(i) ((st[i] != ABSENT) -> (1 << i) : 0)
#if RUNS == 2
#define inserted_runs() (INSERTED(0) | INSERTED(1))
#elif RUNS == 3
#define inserted_runs() (INSERTED(0) | INSERTED(1) | INSERTED(2))
#endif

/* A process dies here (SIGKILL, OOM, power loss): it writes nothing more. The step offered
   beside a crash never starts with an `if` holding an `else`: Promela would make that
   `else` wait until the crash is no longer possible. Guards are written out instead. */
#define CRASH_OR :: atomic { crashes < MAX_CRASHES -> die(); goto crashed }

/* I1 lets a queued run wait for the next producer or `jobs` read when the worker it was
   counting on dies: the lock holder (every run inserted so far), or a worker spawned after
   the run's insert that had not acquired the lock yet (the runs in `before`). A worker that
   has lost the lock counts for nothing. */
inline die() {
  crashes++;
  alive[me] = false;
  if
  :: me >= FIRST_EXECUTOR -> xcode[me] = EXIT_KILLED
  :: me < FIRST_EXECUTOR && lock == me ->
     i = 0;
     do
     :: i < RUNS -> excused[i] = excused[i] || st[i] != ABSENT; i++
     :: else -> break
     od;
     i = 0
  :: me < FIRST_EXECUTOR && lock != me && !acquired ->
     i = 0;
     do
     :: i < RUNS -> excused[i] = excused[i] || (before & (1 << i)) != 0; i++
     :: else -> break
     od;
     i = 0
  :: else -> skip
  fi
}

inline oldest_queued(q) {             /* ORDER BY seq LIMIT 1: the lowest index */
  q = 0;
  do
  :: q < RUNS && st[q] != QUEUED -> q++
  :: q < RUNS && st[q] == QUEUED -> break
  :: q == RUNS -> q = NONE; break
  od
}

inline running_runs(mask) {           /* RunStore.runningRuns(): one read */
  mask = 0;
  i = 0;
  do
  :: i < RUNS -> if :: st[i] == RUNNING -> mask = mask | (1 << i) :: else -> skip fi; i++
  :: else -> break
  od;
  i = 0
}

inline spawn_worker() {               /* Spawner.spawnWorker(): a detached __run-worker */
  assert(workers_spawned < WORKERS);
  workers_spawned++;
  alive[workers_spawned] = true;
  run Worker(workers_spawned, inserted_runs())
}

/* reapOrphanedRuns: every run of one runningRuns() read whose executor is gone gets
   finishRun(failed, executionId), which leaves a terminal run alone. */
inline reap_orphaned_runs(may_crash) {
  if
  :: atomic { may_crash && crashes < MAX_CRASHES -> die(); goto crashed }
  :: atomic { running_runs(snap) }
  fi;
  r = 0;
  do
  :: r < RUNS && (snap & (1 << r)) ->
     if
     :: atomic { may_crash && crashes < MAX_CRASHES -> die(); goto crashed }
     :: atomic {
          if
          :: !alive[rexec[r]] && st[r] == RUNNING -> st[r] = FAILED
          :: alive[rexec[r]] || st[r] != RUNNING -> skip   /* alive: adopt's; or ended */
          fi
        }
     fi;
     r++
  :: r < RUNS && !(snap & (1 << r)) -> r++
  :: r == RUNS -> break
  od;
  r = 0; snap = 0
}

/* ---------------------------------------------------------------------------------------
 * __run-executor: executeRun = claimRun (one transaction), then the lifecycle runner,
 * which ends with finishRun(done) (the first terminal write wins).
 */
proctype Executor(byte me; byte r; byte token) {
  byte i, i3_busy, before;            /* before, acquired: read by die(), unused here */
  bool acquired;
  if
  CRASH_OR
  :: atomic {                                         /* RunStore.claimRun */
       if
       :: st[r] != QUEUED -> xcode[me] = EXIT_NOT_MINE; goto exit          /* not_queued */
#ifdef NO_TOKEN_CHECK
       :: st[r] == QUEUED ->
#else
       :: st[r] == QUEUED && lock != token -> xcode[me] = EXIT_NOT_MINE; goto exit   /* lock_lost */
       :: st[r] == QUEUED && lock == token ->
#endif
          i3_busy = 0;
          i = FIRST_EXECUTOR;
          do
          :: i < PROCS -> i3_busy = i3_busy + ((alive[i] && working[i]) -> 1 : 0); i++
          :: else -> break
          od;
          i = 0;
          st[r] = RUNNING; rexec[r] = me; i2_claims[r]++; working[me] = true;
          assert(i2_claims[r] <= 1);                                         /* I2 */
          assert(i3_busy == 0);                                              /* I3 */
          i3_busy = 0
       fi
     }
  fi;
  if
  CRASH_OR
  :: atomic {                                         /* the runner's last write */
       if :: st[r] == RUNNING -> st[r] = DONE :: st[r] != RUNNING -> skip fi;
       working[me] = false
     }
  fi;
exit:
  if
  CRASH_OR
  :: atomic { alive[me] = false }                     /* process exit */
  fi;
crashed:
  skip
}

/* ---------------------------------------------------------------------------------------
 * __run-worker: QueueWorker.drain.
 */

/* supervise / pollUntilGone: the drain awaits here, so this is also where the heartbeat's
   setInterval callback runs (LockStore.heartbeat, matched on the token). */
inline await_exit(x) {
  do
  CRASH_OR
  :: !alive[x] -> break
  :: atomic { lock == me && stale -> stale = false }            /* one row changed */
  :: atomic { lock != me && !lost[me] -> lost[me] = true }      /* zero rows: ownership lost */
  od
}

/* reconcile: requireRun, then the write the status calls for. The read and the write are
   two transactions in the code; each write re-checks what the read saw, so one step here
   has the same outcomes. */
inline reconcile(r, x) {
  if
  CRASH_OR
  :: atomic {
       if
       :: st[r] == QUEUED && xcode[x] == EXIT_NOT_MINE -> lost[me] = true  /* the lock moved */
       :: st[r] == QUEUED && xcode[x] != EXIT_NOT_MINE && lock == me ->
          st[r] = FAILED                              /* failUnclaimedRun */
       :: st[r] == QUEUED && xcode[x] != EXIT_NOT_MINE && lock != me -> skip   /* not ours */
       :: st[r] == RUNNING && rexec[r] == x ->
          st[r] = FAILED                              /* finishRun(failed, executionId) */
       :: st[r] == RUNNING && rexec[r] != x -> skip    /* another execution's */
       :: st[r] == DONE || st[r] == FAILED -> skip    /* ended: keep it */
       fi
     }
  fi
}

proctype Worker(byte me; byte before) {   /* before: the runs inserted when it was spawned */
  byte r, x, snap, i;
  bool acquired = false, released = false, probe;

  if
  CRASH_OR
  :: atomic {                                         /* LockStore.acquireWorkerLock */
       if
       :: lock == 0 || !alive[lock] || stale -> lock = me; stale = false; acquired = true
       :: lock != 0 && alive[lock] && !stale -> goto exit   /* lock_held */
       fi
     }
  fi;

  reap_orphaned_runs(true);

#ifndef NO_ADOPT
  if                                                  /* adoptLiveExecutions */
  CRASH_OR
  :: atomic { running_runs(snap) }
  fi;
  r = 0;
  do
  :: r < RUNS && (snap & (1 << r)) ->
     if
     CRASH_OR
     :: atomic { x = rexec[r]; probe = alive[x] }     /* processes.probe(execution) */
     fi;
     if
     :: probe -> await_exit(x); reconcile(r, x)
     :: else -> skip
     fi;
     x = 0; probe = false; r++
  :: r < RUNS && !(snap & (1 << r)) -> r++
  :: r == RUNS -> break
  od;
  r = 0; snap = 0;
#endif

drain:
  if
  :: lost[me] -> goto ending                          /* ownership_lost */
  :: else -> skip
  fi;
  if
  CRASH_OR
  :: atomic { oldest_queued(r) }                      /* RunStore.takeNextQueued */
  fi;
  if
  :: r == NONE ->
     if
     CRASH_OR
#ifdef NO_HANDOFF
     :: atomic {                                      /* release without a second look */
          if :: lock == me -> lock = 0; released = true :: lock != me -> skip fi
        }
#else
     :: atomic {                                      /* LockStore.releaseWorkerIfIdle */
          oldest_queued(r);
          if
          :: lock != me -> skip                       /* ownership_lost */
          :: lock == me && r != NONE -> r = 0; goto drain   /* work_available */
          :: lock == me && r == NONE -> lock = 0; released = true  /* released */
          fi
        }
#endif
     fi;
     r = 0;
     goto ending
  :: else -> skip
  fi;

  if                                                  /* execute: hand the run to a standby */
  CRASH_OR
  :: atomic {
       assert(executors_spawned < EXECUTORS);
       x = FIRST_EXECUTOR + executors_spawned;
       executors_spawned++;
       alive[x] = true;
       run Executor(x, r, me)
     }
  fi;
  await_exit(x);
  reconcile(r, x);
  r = 0; x = 0;
  goto drain;

ending:
  if
  :: !released ->
     if
     CRASH_OR
     :: atomic { if :: lock == me -> lock = 0 :: lock != me -> skip fi }   /* releaseWorker */
     fi
  :: else -> skip
  fi;
exit:
  atomic { alive[me] = false };                       /* process exit */
crashed:
  skip
}

/* ---------------------------------------------------------------------------------------
 * A lifecycle command: enqueueAndWake = enqueueRun (one transaction), then spawnWorker.
 * It always spawns; a worker that finds a live, fresh holder exits (lock_held).
 * Run r commits after run r - 1, so its index is its seq: the producers are alike, and
 * any other commit order is the same behaviour with the runs renamed.
 */
proctype Producer(byte r) {
  atomic { (r == 0 || st[r - 1] != ABSENT) -> st[r] = QUEUED };   /* RunStore.enqueueRun */
  atomic { spawn_worker() }
}

/* A `jobs` read: JobsService.recover = reapOrphanedRuns, then wakeWorkerIfNeeded. */
proctype JobsRead() {                 /* it never crashes; me, before, acquired are for die() */
  byte r, snap, i, me, before;
  bool queued, acquired;
  reap_orphaned_runs(false);
  atomic { oldest_queued(r); queued = (r != NONE); r = 0 };     /* RunStore.hasQueuedRuns */
  if
  :: queued ->
     atomic {                                         /* LockStore.hasLiveWorker, then spawn */
       if
       :: lock != 0 && alive[lock] && !stale -> skip
       :: lock == 0 || !alive[lock] || stale -> spawn_worker()
       fi
     }
  :: else -> skip
  fi;
crashed:
  skip
}

/* One live lock holder stops heartbeating for longer than staleAfterMs. */
proctype Staller() {
  do
  :: atomic { stalls < MAX_STALLS && lock != 0 && alive[lock] && !stale -> stale = true; stalls++ }
  :: break
  od
}

init {
  byte r;
  bool i1_stranded, i1_unfinished;
  atomic {
    r = 0;
    do
    :: r < RUNS -> run Producer(r); r++
    :: else -> break
    od;
#ifdef JOBS_READ
    run JobsRead();
#endif
    run Staller();
    r = 0
  };

  (_nr_pr == 1);                                      /* every process has ended */
  do
  :: r < RUNS ->
     i1_stranded = (st[r] == QUEUED && !excused[r]);
     assert(!i1_stranded);                                             /* I1 */
     r++
  :: else -> break
  od;

  atomic { crashes = MAX_CRASHES; stalls = MAX_STALLS; r = 0 };   /* the crashes are over */
  run JobsRead();                                     /* the recovery of any later `jobs` read */
  (_nr_pr == 1);
  do
  :: r < RUNS ->
     i1_unfinished = (st[r] != DONE && st[r] != FAILED);
     assert(!i1_unfinished);                                           /* I1, after recovery */
     r++
  :: else -> break
  od
}
