import { Effect, Either } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { WorkerReply, WorkerRequest, WorkerSetup } from "./workerProtocol.js"

/** tsx's ESM API, as its package's export map names it, to run the TypeScript source of the worker. */
const tsxApi = () => {
  const require = createRequire(import.meta.url)
  const manifestPath = require.resolve("tsx/package.json")
  const manifest: { readonly exports?: Record<string, { readonly import?: { readonly default?: string } } | string> } = JSON.parse(
    NodeFs.readFileSync(manifestPath, "utf8")
  )
  const entry = manifest.exports?.["./esm/api"]
  const file = typeof entry === "object" ? entry.import?.default : undefined
  return file === undefined ? undefined : pathToFileURL(NodePath.join(NodePath.dirname(manifestPath), file)).href
}

/**
 * Where the built worker script may be, from the module holding this code: beside it (a build
 * keeping the sources' layout), or at `dist/llm/local/embedWorker.js` seen from a program's bundle
 * in `dist/`.
 */
const BUILT_WORKER = ["./embedWorker.js", "./llm/local/embedWorker.js"]

/**
 * The worker script, built; from the sources (tests, `npm run dev`), a bootstrap that registers
 * tsx in the thread, then imports `embedWorker.ts`.
 */
const workerScript = (): Either.Either<URL, string> => {
  const built = BUILT_WORKER.map((path) => new URL(path, import.meta.url)).find((url) => NodeFs.existsSync(fileURLToPath(url)))
  if (built !== undefined) return Either.right(built)
  const source = new URL("./embedWorker.ts", import.meta.url)
  const api = tsxApi()
  if (api === undefined || !NodeFs.existsSync(fileURLToPath(source))) return Either.left(`the embedding worker script is missing (no embedWorker.js near ${fileURLToPath(import.meta.url)})`)
  const bootstrap = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(source.href)});`
  return Either.right(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`))
}

/** Batches of searches and single texts go before bulk work's. */
export type Priority = "query" | "bulk"

interface Job {
  readonly id: number
  readonly texts: ReadonlyArray<string>
  readonly done: (result: Either.Either<ReadonlyArray<Float32Array>, string>) => void
  /** Its caller gave up (deadline, interruption): its result goes nowhere. */
  abandoned: boolean
}

interface Slot {
  readonly worker: Worker
  job: Job | undefined
}

export interface EmbedPool {
  readonly dimensions: number
  readonly maxTokens: number
  /** Texts queued and not yet taken by a thread. */
  readonly queuedTexts: () => number
  /** Threads running a batch now. */
  readonly busyThreads: () => number
  readonly run: (texts: ReadonlyArray<string>, priority: Priority) => Effect.Effect<ReadonlyArray<Float32Array>, string>
}

/**
 * `threads` worker threads, each with the model loaded, taking batches from two queues (searches
 * first). Closing the scope ends them. Fails with the first thread's reason when the model does
 * not load.
 */
export const startPool = (setup: WorkerSetup, threads: number) =>
  Effect.gen(function*() {
    const script = yield* workerScript()
    const queues: Record<Priority, Array<Job>> = { query: [], bulk: [] }
    const slots: Array<Slot> = []
    let nextId = 0
    let closed = false

    const dispatch = () => {
      for (const slot of slots) {
        if (slot.job !== undefined) continue
        const job = queues.query.shift() ?? queues.bulk.shift()
        if (job === undefined) return
        slot.job = job
        slot.worker.postMessage({ id: job.id, texts: job.texts } satisfies WorkerRequest)
      }
    }

    const finish = (slot: Slot, result: Either.Either<ReadonlyArray<Float32Array>, string>) => {
      const job = slot.job
      slot.job = undefined
      if (job !== undefined && !job.abandoned) job.done(result)
      dispatch()
    }

    /** A thread that started and loaded the model, with its first reply (ready or why not). */
    const spawn = () =>
      new Promise<{ readonly slot: Slot; readonly ready: WorkerReply }>((resolve) => {
        const worker = new Worker(script, { workerData: setup })
        const slot: Slot = { worker, job: undefined }
        let started = false
        worker.on("message", (message: WorkerReply) => {
          if (message.kind === "ready" || message.kind === "failed") {
            started = true
            resolve({ slot, ready: message })
          } else if (message.kind === "vectors") finish(slot, Either.right(message.vectors))
          else finish(slot, Either.left(message.message))
        })
        worker.on("error", (error) => {
          if (!started) resolve({ slot, ready: { kind: "failed", message: error.message } })
          else finish(slot, Either.left(`an embedding thread failed: ${error.message}`))
        })
        worker.on("exit", (code) => {
          if (!started) resolve({ slot, ready: { kind: "failed", message: `the embedding thread exited (${code}) before loading the model` } })
          if (closed || !started) return
          // A thread that died takes its batch with it; another takes its place.
          const index = slots.indexOf(slot)
          if (index >= 0) slots.splice(index, 1)
          finish(slot, Either.left(`an embedding thread exited (${code})`))
          void spawn().then(({ ready, slot: fresh }) => {
            if (ready.kind !== "ready" || closed) return void fresh.worker.terminate()
            slots.push(fresh)
            dispatch()
          })
        })
      })

    const started = yield* Effect.promise(() => Promise.all(Array.from({ length: threads }, spawn)))
    slots.push(...started.map(({ slot }) => slot))
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => {
        closed = true
        return Promise.all(slots.map((slot) => slot.worker.terminate()))
      })
    )
    const first = started[0]!.ready
    const failed = started.find(({ ready }) => ready.kind !== "ready")?.ready
    if (failed?.kind === "failed") return yield* Effect.fail(failed.message)
    if (first.kind !== "ready") return yield* Effect.fail("the embedding threads did not start")

    const run = (texts: ReadonlyArray<string>, priority: Priority) =>
      Effect.async<ReadonlyArray<Float32Array>, string>((resume) => {
        if (closed) return resume(Effect.fail("the embedding threads are stopped"))
        const job: Job = {
          id: nextId++,
          texts,
          abandoned: false,
          done: (result) => resume(Either.match(result, { onLeft: Effect.fail, onRight: Effect.succeed }))
        }
        queues[priority].push(job)
        dispatch()
        return Effect.sync(() => {
          // Interrupted (deadline passed, request gone): a queued batch leaves the queue, a running one is ignored.
          job.abandoned = true
          const queue = queues[priority]
          const index = queue.indexOf(job)
          if (index >= 0) queue.splice(index, 1)
        })
      })

    return {
      dimensions: first.dimensions,
      maxTokens: first.maxTokens,
      queuedTexts: () => queues.query.reduce((n, job) => n + job.texts.length, 0) + queues.bulk.reduce((n, job) => n + job.texts.length, 0),
      busyThreads: () => slots.filter((slot) => slot.job !== undefined).length,
      run
    } satisfies EmbedPool
  })
