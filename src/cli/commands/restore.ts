import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { commandModule } from "../lazy.js"
import { json } from "../options.js"
import { note, printAs } from "../output.js"
import { userProgress } from "../progress.js"
import { backupFailure, megabytes } from "./backupShared.js"

const options = {
  from: Options.directory("from", { exists: "either" }).pipe(Options.withDescription("The backup to restore")),
  dataRoot: Options.directory("data-root", { exists: "either" }).pipe(Options.withDescription("The new data root: must not exist, or be empty")),
  json
}

export const restoreCommand = Command.make("restore", options, (input) =>
  Effect.gen(function*() {
    const { restoreBackup } = yield* commandModule("restore", () => import("../../storage/sqlite/backup/restore.js"))
    const restored = yield* restoreBackup({ from: input.from, dataRoot: input.dataRoot, onProgress: userProgress(process.stderr.isTTY === true) }).pipe(
      Effect.mapError(backupFailure)
    )
    yield* note(`restored ${restored.users} users (${megabytes(restored.bytes)}) into ${restored.dataRoot}; start the service on it with SERVICE_DATA_ROOT=${restored.dataRoot}`)
    yield* printAs(input.json, { data_root: restored.dataRoot, users: restored.users, bytes: restored.bytes, rows: restored.rows }, (summary) =>
      Console.log(`data root ${summary.data_root}\nusers     ${summary.users}`))
  })).pipe(Command.withDescription("Restore a verified backup into a new data root, whole or not at all"))
