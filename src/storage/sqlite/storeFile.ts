import { Reactivity } from "@effect/experimental"
import { type Context, Effect, Exit, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as SqliteVec from "sqlite-vec"
import { StoreUnavailable } from "../../api/errors.js"
import { STORE_SCHEMA_VERSION } from "../../version.js"
import { FOREGROUND_CHECKPOINT_PAGES, type makeCheckpointer } from "./checkpointer.js"
import { openMigrated } from "./database.js"
import { userStoreMigrations } from "./user/migrations.js"

const STORE_FILE = "store.db"

/**
 * Each open store's page cache, in KiB. better-sqlite3 builds SQLite with 16 MiB per connection,
 * which over SERVICE_STORE_CACHE_MAX stores (64) comes to a gigabyte once they have been read
 * through; pages beyond this cache are read again from the OS's file cache, shared by every store.
 */
export const STORE_PAGE_CACHE_KIB = 2048

/** Where a user's store lives: one directory per user under the data root. */
export const storeDirectory = (dataRoot: string, userId: string) => NodePath.join(dataRoot, userId)

export const storeFilePath = (dataRoot: string, userId: string) => NodePath.join(storeDirectory(dataRoot, userId), STORE_FILE)

/**
 * Opens (creating it if needed) and migrates a user's store, with sqlite-vec loaded, in a scope
 * of its own that closing ends; any failure is `StoreUnavailable` naming the cause.
 */
export const openStoreFile = (options: {
  readonly dataRoot: string
  readonly userId: string
  readonly checkpointer: Effect.Effect.Success<typeof makeCheckpointer>
  readonly reactivity: Context.Tag.Service<typeof Reactivity.Reactivity>
  /** Whether audit events enter the webhook outbox. */
  readonly webhooks: boolean
}) =>
  Effect.gen(function*() {
    const { checkpointer, userId } = options
    const directory = storeDirectory(options.dataRoot, userId)
    const scope = yield* Scope.make()
    const unavailable = (cause: string) =>
      new StoreUnavailable({
        message: `could not open the store for user_id='${userId}': ${cause}`,
        details: { user_id: userId, cause }
      })
    const filename = storeFilePath(options.dataRoot, userId)
    const sql = yield* Effect.try({
      try: () => NodeFs.mkdirSync(directory, { recursive: true }),
      catch: (error) => unavailable(`the store directory cannot be created (${(error as Error).message})`)
    }).pipe(
      Effect.zipRight(openMigrated({
        filename,
        migrations: userStoreMigrations,
        latest: STORE_SCHEMA_VERSION,
        extensions: [SqliteVec.getLoadablePath()],
        onTransactionEnd: checkpointer.transactionEnded(filename)
      })),
      // Checkpoints run on the checkpointer's thread; one still running is waited for before the connection closes.
      Effect.tap((opened) => opened`PRAGMA wal_autocheckpoint = ${opened.literal(String(FOREGROUND_CHECKPOINT_PAGES))}`),
      Effect.tap((opened) => opened`PRAGMA cache_size = ${opened.literal(String(-STORE_PAGE_CACHE_KIB))}`),
      // What is deleted or overwritten is zeroed on the page, so that a purge leaves no words in free space.
      Effect.tap((opened) => opened`PRAGMA secure_delete = ON`),
      // A temporary trigger lives with its connection: only a service that delivers fills the
      // outbox, in the transaction that appends the event.
      Effect.tap((opened) =>
        options.webhooks
          ? opened`CREATE TEMP TRIGGER webhook_outbox_fill AFTER INSERT ON main.events
                   BEGIN INSERT INTO main.webhook_outbox (event_seq) VALUES (NEW.seq); END`
          : Effect.void),
      Effect.tap(() => Effect.addFinalizer(() => checkpointer.closing(filename))),
      Scope.extend(scope),
      Effect.provideService(Reactivity.Reactivity, options.reactivity),
      Effect.catchTags({
        SchemaNewer: ({ found, supported }) =>
          Effect.fail(unavailable(`StoreVersionError. The store has schema ${found}, newer than this build's ${supported}; run a newer build`)),
        SqlError: (error) => Effect.fail(unavailable(`SqlError. ${error.message}`)),
        MigrationError: (error) => Effect.fail(unavailable(`MigrationError. ${error.message}`))
      }),
      Effect.tapError(() => Scope.close(scope, Exit.void))
    )
    return { sql, scope }
  })
