import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option, Redacted } from "effect"
import type { VerifiedBackup } from "../../storage/sqlite/backup/verify.js"
import type { MigrationRefused, MigrationStoreFailed } from "../../storage/transfer/errors.js"
import type { DatabaseInspection } from "../../storage/transfer/inspectDatabase.js"
import { isPostgresUrl } from "../../config/variables.js"
import { CliFailure, invalidInput } from "../errors.js"
import { commandModule } from "../lazy.js"
import { json } from "../options.js"
import { note, printAs, table } from "../output.js"
import { userProgress } from "../progress.js"
import { backupFailure, megabytes, rowTable } from "./backupShared.js"

const options = {
  databaseUrl: Options.redacted("database-url").pipe(
    Options.optional,
    Options.withDescription("Instead of a backup, read this PostgreSQL database (postgres://…): its schema version and each user's row counts")
  ),
  json
}

const args = Args.directory({ name: "backup", exists: "either" }).pipe(Args.optional)

const readableBackup = (verified: VerifiedBackup) =>
  Console.log([
    `backup of ${verified.manifest.source}, taken ${verified.manifest.started_at} to ${verified.manifest.finished_at}`,
    `users  ${verified.users}, ${megabytes(verified.bytes)}, store schema ${[...new Set(verified.manifest.users.map((user) => user.schema_version))].join(", ") || "-"}, control schema ${verified.manifest.control.schema_version}`,
    rowTable(verified.rows)
  ].join("\n"))

const readableDatabase = (inspection: DatabaseInspection) => {
  const tables = [...new Set(inspection.users.flatMap((user) => Object.keys(user.rows)))]
  return Console.log([
    `database ${inspection.database}, schema version ${inspection.schema_version}, ${inspection.users.length} users`,
    table(["USER", ...tables.map((name) => name.toUpperCase())], inspection.users.map((user) => [user.user_id, ...tables.map((name) => user.rows[name] ?? 0)])),
    "control plane:",
    rowTable(inspection.control)
  ].join("\n"))
}

const databaseFailure = (error: MigrationRefused | MigrationStoreFailed) =>
  new CliFailure({ code: error._tag === "MigrationRefused" ? error.code : "store_failed", message: error.message })

export const verifyCommand = Command.make("verify", { ...options, backup: args }, (input) =>
  Effect.gen(function*() {
    if (Option.isSome(input.databaseUrl)) {
      if (Option.isSome(input.backup)) return yield* invalidInput("give either a backup directory or --database-url, not both")
      const url = input.databaseUrl.value
      if (!isPostgresUrl(Redacted.value(url))) return yield* invalidInput("expected a PostgreSQL URL, postgres://user:password@host:port/database (the value is not shown)")
      const { inspectPostgres } = yield* commandModule("database inspection", () => import("../../storage/transfer/inspectDatabase.js"))
      const inspection = yield* inspectPostgres(url).pipe(Effect.mapError(databaseFailure))
      return yield* printAs(input.json, inspection, readableDatabase)
    }
    if (Option.isNone(input.backup)) return yield* invalidInput("give the backup directory to verify (or --database-url)")
    const { verifyBackup } = yield* commandModule("backup verification", () => import("../../storage/sqlite/backup/verify.js"))
    const verified = yield* verifyBackup(input.backup.value, userProgress(process.stderr.isTTY === true)).pipe(Effect.mapError(backupFailure))
    yield* note(`${input.backup.value} matches its manifest: ${verified.users} users, every store intact`)
    yield* printAs(input.json, verified, readableBackup)
  })).pipe(Command.withDescription("Check a backup against its manifest (checksums, schema versions, row counts, integrity), or report a PostgreSQL database's"))
