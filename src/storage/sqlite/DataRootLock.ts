import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Context, Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { AppConfig } from "../../config/AppConfig.js"
import { recordLockContention } from "./control/lockContention.js"
import { StartupError } from "../../startup/StartupError.js"

/**
 * Exclusive ownership of the data root for the life of the process. The lock is an open
 * EXCLUSIVE transaction on a SQLite file: a second process gets SQLITE_BUSY at once, and the
 * kernel drops the lock when its holder dies, so a killed process never blocks a restart.
 */
export class DataRootLock extends Context.Tag("Memory/DataRootLock")<DataRootLock, { readonly dataRoot: string }>() {}

const notWritable = (dataRoot: string, cause: unknown) =>
  new StartupError({
    code: "data_root_not_writable",
    message: `the data root ${dataRoot} cannot be created or written: ${cause instanceof Error ? cause.message : String(cause)}`,
    details: { data_root: dataRoot }
  })

const prepareRoot = (dataRoot: string) =>
  Effect.try({
    try: () => {
      const controlDir = NodePath.join(dataRoot, ".control")
      NodeFs.mkdirSync(controlDir, { recursive: true })
      NodeFs.accessSync(controlDir, NodeFs.constants.W_OK)
      return controlDir
    },
    catch: (cause) => notWritable(dataRoot, cause)
  })

const isBusy = (cause: unknown) => /SQLITE_BUSY|database is locked/i.test(String(cause))

/**
 * Takes the lock on a data root for the enclosing scope: refused with `data_root_locked` while
 * another process holds it. A service and `migrate` both take it.
 */
export const lockDataRoot = (dataRoot: string) =>
  Effect.gen(function*() {
    const controlDir = yield* prepareRoot(dataRoot)
    const lock = yield* SqliteClient.make({ filename: NodePath.join(controlDir, "server.lock"), disableWAL: true })
    const taken = yield* Effect.all([
      lock`PRAGMA busy_timeout = 0`,
      lock`PRAGMA locking_mode = EXCLUSIVE`,
      lock`BEGIN EXCLUSIVE`
    ], { discard: true }).pipe(Effect.either)
    if (taken._tag === "Left") {
      if (!isBusy(taken.left.cause)) return yield* notWritable(dataRoot, taken.left.cause)
      yield* recordLockContention(dataRoot)
      return yield* new StartupError({
        code: "data_root_locked",
        message: `another process is already serving ${dataRoot}; run one process per data root`,
        details: { data_root: dataRoot }
      })
    }
    return { dataRoot }
  })

export const DataRootLockLive = Layer.scoped(DataRootLock, Effect.flatMap(AppConfig, ({ dataRoot }) => lockDataRoot(dataRoot))).pipe(
  Layer.provide(Reactivity.layer)
)
