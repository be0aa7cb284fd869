import { Command, Options } from "@effect/cli"
import { Console, Effect, Option, Redacted } from "effect"
import { dataRootSetting } from "../../config/AppConfig.js"
import { isPostgresUrl } from "../../config/variables.js"
import type { MigrationError } from "../../storage/transfer/errors.js"
import type { MigrationSummary } from "../../storage/transfer/migrate.js"
import { CliFailure, invalidInput } from "../errors.js"
import { commandModule } from "../lazy.js"
import { json } from "../options.js"
import { note, printAs, table } from "../output.js"
import { userProgress } from "../progress.js"

const options = {
  to: Options.redacted("to").pipe(Options.optional, Options.withDescription("Copy the data root into this PostgreSQL database (postgres://…)")),
  from: Options.redacted("from").pipe(Options.optional, Options.withDescription("Copy this PostgreSQL database into the data root")),
  dataRoot: Options.directory("data-root", { exists: "either" }).pipe(
    Options.optional,
    Options.withDescription("The data root (with --to, default SERVICE_DATA_ROOT; required with --from)")
  ),
  json
}

const failure = (error: MigrationError): CliFailure => {
  switch (error._tag) {
    case "MigrationRefused":
      return new CliFailure({ code: error.code, message: error.message })
    case "MigrationConflict":
      return new CliFailure({ code: "migrate_conflict", message: error.message })
    case "MigrationCountMismatch":
      return new CliFailure({ code: "migrate_count_mismatch", message: error.message })
    case "MigrationStoreFailed":
      return new CliFailure({ code: "store_failed", message: error.message })
    case "MigrationUnstorableText":
      return new CliFailure({ code: "migrate_unstorable_text", message: error.message })
  }
}

/** Which way, from the flags: exactly one of --to and --from, a PostgreSQL URL. */
const direction = (input: { readonly to: Option.Option<Redacted.Redacted>; readonly from: Option.Option<Redacted.Redacted>; readonly dataRoot: Option.Option<string> }) =>
  Effect.gen(function*() {
    const url = Option.getOrUndefined(Option.orElse(input.to, () => input.from))
    if (url === undefined || (Option.isSome(input.to) && Option.isSome(input.from))) return yield* invalidInput("give exactly one of --to and --from")
    if (!isPostgresUrl(Redacted.value(url))) return yield* invalidInput("expected a PostgreSQL URL, postgres://user:password@host:port/database (the value is not shown)")
    if (Option.isSome(input.from)) {
      if (Option.isNone(input.dataRoot)) return yield* invalidInput("--from needs --data-root: the (new or empty) data root to copy into")
      return { direction: "from_postgres" as const, url, dataRoot: input.dataRoot.value }
    }
    const dataRoot = Option.isSome(input.dataRoot)
      ? input.dataRoot.value
      : yield* dataRootSetting.pipe(Effect.mapError((error) => new CliFailure({ code: error.code, message: error.message })))
    return { direction: "to_postgres" as const, url, dataRoot }
  })

const readable = (summary: MigrationSummary) => {
  const { copied, recopied, skipped, total } = summary.users
  const tables = [...Object.entries(summary.rows), ...Object.entries(summary.control_rows)].map(([name, n]) => [name, n])
  return Console.log([
    `from   ${summary.source}`,
    `to     ${summary.target}`,
    `users  ${total}: ${copied} copied, ${recopied} copied again (cut off before), ${skipped} already there`,
    ...Object.entries(summary.control).map(([name, rows]) => `${name.padEnd(6)} ${rows.copied} copied, ${rows.skipped} already there`),
    "row counts, equal on both ends:",
    table(["TABLE", "ROWS"], tables)
  ].join("\n"))
}

export const migrateCommand = Command.make("migrate", options, (input) =>
  Effect.gen(function*() {
    const chosen = yield* direction(input)
    const { runMigration } = yield* commandModule("migration", () => import("../../storage/transfer/runMigration.js"))
    const summary = yield* runMigration({ ...chosen, onProgress: userProgress(process.stderr.isTTY === true) }).pipe(Effect.mapError(failure))
    yield* note(`migrated ${summary.users.total} users (${summary.users.copied} copied, ${summary.users.recopied} copied again, ${summary.users.skipped} skipped); row counts verified`)
    yield* printAs(input.json, summary, readable)
  })).pipe(Command.withDescription("Move a deployment between the data root (SQLite) and a PostgreSQL database, resumably"))
