import { Deferred, Effect } from "effect"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** Write transactions on a store between two background checkpoints of its WAL. */
export const CHECKPOINT_EVERY = 4

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

/**
 * Checkpoints the WALs of the stores on a worker thread. With synchronous = NORMAL a checkpoint
 * syncs the WAL and the database file, some milliseconds of fsync each time: done on the writing
 * connection, every few sessions one request would wait for them.
 */
export const makeCheckpointer = Effect.gen(function*() {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const transactions = new Map<string, number>()
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

  const report = (filename: string, pending: Deferred.Deferred<string | null>) =>
    Effect.flatMap(Deferred.await(pending), (error) =>
      error === null ? Effect.void : Effect.logWarning(`background checkpoint of ${filename} failed: ${error}`))

  /** Waits for the store's running checkpoint, if any. */
  const settled = (filename: string) =>
    Effect.suspend(() => {
      const pending = inFlight.get(filename)
      return pending === undefined ? Effect.void : Effect.asVoid(Deferred.await(pending))
    })

  return {
    /** Counts a finished transaction on the store; every CHECKPOINT_EVERY-th asks the worker for a checkpoint, unless one is running. */
    transactionEnded: (filename: string) =>
      Effect.gen(function*() {
        if (stopped !== undefined) {
          if (!stopReported) yield* Effect.logWarning(`background checkpoints stopped (${stopped}); stores checkpoint on their writer`)
          stopReported = true
          return
        }
        const count = (transactions.get(filename) ?? 0) + 1
        transactions.set(filename, count % CHECKPOINT_EVERY)
        if (count < CHECKPOINT_EVERY || inFlight.has(filename)) return
        const pending = yield* Deferred.make<string | null>()
        inFlight.set(filename, pending)
        // Posted on the next turn of the event loop: the transaction's response is sent before
        // the message is copied to the worker. A close meanwhile waits for `pending` all the same.
        const thread = started()
        yield* Effect.sync(() => setImmediate(() => thread.postMessage(filename)))
        yield* Effect.forkIn(report(filename, pending), scope)
      }),

    settled,

    /** Whether the worker thread has been started (and not yet stopped). */
    running: Effect.sync(() => worker !== undefined && stopped === undefined),

    /** The store is closing: waits for its running checkpoint, due before its connection closes or its files go, and forgets it. */
    closing: (filename: string) => Effect.ensuring(settled(filename), Effect.sync(() => transactions.delete(filename)))
  }
})
