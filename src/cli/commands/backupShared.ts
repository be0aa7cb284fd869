import { Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { dataRootSetting } from "../../config/AppConfig.js"
import type { BackupFailed } from "../../storage/sqlite/backup/errors.js"
import { CliFailure } from "../errors.js"
import { table } from "../output.js"

export const dataRootOption = (description: string) =>
  Options.directory("data-root", { exists: "either" }).pipe(Options.optional, Options.withDescription(description))

/** The data root given, else SERVICE_DATA_ROOT's. */
export const dataRootOrSetting = (given: Option.Option<string>) =>
  Option.isSome(given)
    ? Effect.succeed(given.value)
    : dataRootSetting.pipe(Effect.mapError((error) => new CliFailure({ code: error.code, message: error.message })))

export const backupFailure = (error: BackupFailed) => new CliFailure({ code: error.code, message: error.message })

/** Rows per table, summed over users, as aligned lines. */
export const rowTable = (rows: Readonly<Record<string, number>>) => table(["TABLE", "ROWS"], Object.entries(rows).map(([name, n]) => [name, n]))

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
