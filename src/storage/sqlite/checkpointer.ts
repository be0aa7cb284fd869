import { Deferred, Duration, Effect, Exit, Fiber, FiberId } from "effect"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/**
 * How long after a write transaction its store's WAL is checkpointed at the latest, unless the
 * store's previous checkpoint is still running then: synced into the database file, the
 * transaction outlasts a power cut (a process crash loses nothing even before). Every
 * transaction of the interval goes in the same checkpoint.
 */
export const CHECKPOINT_DELAY = Duration.seconds(1)

/** Write transactions that bring a store's checkpoint forward, so that its WAL stays small. */
export const CHECKPOINT_EVERY = 64

/**
 * WAL pages past which SQLite checkpoints on the writing connection itself: a safety net for
 * writes made outside transactions, far above what the background checkpoints leave.
 */
export const FOREGROUND_CHECKPOINT_PAGES = 4000

// A plain script, so the same worker runs from the sources and from the build. Each checkpoint
// opens the file afresh (never creating it) and closes it, so the worker holds no store open.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const Database = require(workerData.driver)
parentPort.on("message", (filename) => {
  let error = null
  try {
    const db = new Database(filename, { fileMustExist: true })
    try { db.pragma("wal_checkpoint(PASSIVE)") } finally { db.close() }
  } catch (cause) {
    error = cause instanceof Error ? cause.message : String(cause)
  }
  parentPort.postMessage({ filename, error })
})
`

interface Reply {
  readonly filename: string
  readonly error: string | null
}

/** A store's transactions since its last checkpoint was asked for, and what brings the next one forward. */
interface Round {
  transactions: number
  readonly full: Deferred.Deferred<void>
}

/**
 * Checkpoints the WALs of the stores on a worker thread. With synchronous = NORMAL a checkpoint
 * syncs the WAL and the database file, some milliseconds of fsync each time: done on the writing
 * connection, every few sessions one request would wait for them. A store is checkpointed once
 * per round: CHECKPOINT_DELAY after the first transaction that follows its last checkpoint, or
 * at its CHECKPOINT_EVERY-th transaction if that comes sooner; a store that writes nothing is
 * never checkpointed.
 */
export const makeCheckpointer = Effect.gen(function*() {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const rounds = new Map<string, Round>()
  // Per store, the fiber of its round under way: it waits for its delay, then for its checkpoint.
  const waiting = new Map<string, Fiber.RuntimeFiber<void>>()
  const inFlight = new Map<string, Deferred.Deferred<string | null>>()
  const finish = (filename: string, error: string | null) => {
    const pending = inFlight.get(filename)
    inFlight.delete(filename)
    if (pending !== undefined) Deferred.unsafeDone(pending, Effect.succeed(error))
  }
  // Why the worker is gone, once it is: terminated at shutdown, or failed. Then SQLite's own
  // checkpoint on the writer takes over, and every checkpoint the worker still owed is answered.
  let stopped: string | undefined
  let stopReported = false
  const stop = (reason: string) => {
    stopped ??= reason
    for (const filename of [...inFlight.keys()]) finish(filename, stopped)
  }
  // Started with the first checkpoint due: a thread of its own costs some 14 MiB, which a
  // process that has written nothing yet does not need.
  let worker: Worker | undefined
  const started = () => {
    if (worker !== undefined) return worker
    const made = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver } })
    // Idle, it keeps no process alive.
    made.unref()
    made.on("message", (reply: Reply) => finish(reply.filename, reply.error))
    made.on("error", (error) => stop(`the checkpoint worker failed: ${error.message}`))
    made.on("exit", (code) => stop(`the checkpoint worker exited with code ${code}`))
    worker = made
    return made
  }
  yield* Effect.addFinalizer(() =>
    worker === undefined
      ? Effect.sync(() => stop("the checkpoint worker exited before any checkpoint was due"))
      : Effect.promise(() => worker!.terminate()))
  const scope = yield* Effect.scope

  /** Waits for the store's running checkpoint, if any. */
  const running = (filename: string) =>
    Effect.suspend(() => {
      const pending = inFlight.get(filename)
      return pending === undefined ? Effect.void : Effect.asVoid(Deferred.await(pending))
    })

  /**
   * Asks the worker for the store's checkpoint and waits for it. The round ends in the same step
   * as the checkpoint is marked running, so a store closing meanwhile finds one or the other.
   */
  const checkpoint = (filename: string) =>
    Effect.suspend(() => {
      rounds.delete(filename)
      if (stopped !== undefined) return Effect.void
      const pending = Deferred.unsafeMake<string | null>(FiberId.none)
      inFlight.set(filename, pending)
      const thread = started()
      // Posted on the next turn of the event loop: a response sent in this one goes out first.
      setImmediate(() => thread.postMessage(filename))
      return Effect.flatMap(Deferred.await(pending), (error) =>
        error === null || stopped !== undefined ? Effect.void : Effect.logWarning(`background checkpoint of ${filename} failed: ${error}`))
    })

  const round = (filename: string, current: Round) =>
    Effect.race(Effect.sleep(CHECKPOINT_DELAY), Deferred.await(current.full)).pipe(
      // The store's previous checkpoint may still be running: one at a time per store.
      Effect.zipRight(running(filename)),
      Effect.zipRight(checkpoint(filename)),
      // A finished round is forgotten, unless a later one has taken its place.
      Effect.ensuring(Effect.fiberIdWith((self) =>
        Effect.sync(() => {
          if (waiting.get(filename)?.id() === self) waiting.delete(filename)
        })))
    )

  /** Waits for the store's due and running checkpoints. */
  const settled = (filename: string) =>
    Effect.suspend(() => {
      const fiber = waiting.get(filename)
      return fiber === undefined ? running(filename) : Effect.zipRight(Fiber.await(fiber), running(filename))
    })

  return {
    /** Counts a finished write transaction on the store, starting its round if none is under way. */
    transactionEnded: (filename: string) =>
      Effect.suspend(() => {
        if (stopped !== undefined) {
          if (stopReported) return Effect.void
          stopReported = true
          return Effect.logWarning(`background checkpoints stopped (${stopped}); stores checkpoint on their writer`)
        }
        const current = rounds.get(filename)
        if (current !== undefined) {
          current.transactions += 1
          if (current.transactions >= CHECKPOINT_EVERY) Deferred.unsafeDone(current.full, Exit.void)
          return Effect.void
        }
        const fresh: Round = { transactions: 1, full: Deferred.unsafeMake<void>(FiberId.none) }
        rounds.set(filename, fresh)
        // A transaction ends in its scope's finalizer, whose uninterruptibility a fork would inherit.
        return Effect.map(Effect.forkIn(Effect.interruptible(round(filename, fresh)), scope), (fiber) => {
          waiting.set(filename, fiber)
        })
      }),

    settled,

    /** Whether the worker thread has been started (and not yet stopped). */
    running: Effect.sync(() => worker !== undefined && stopped === undefined),

    /**
     * The store is closing: its due checkpoint is dropped (closing the connection checkpoints the
     * WAL itself), and its running one waited for, due before its connection closes or its files go.
     */
    closing: (filename: string) =>
      Effect.suspend(() => {
        const fiber = waiting.get(filename)
        waiting.delete(filename)
        rounds.delete(filename)
        return fiber === undefined ? running(filename) : Effect.zipRight(Fiber.interrupt(fiber), running(filename))
      })
  }
})
