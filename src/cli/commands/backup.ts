import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as NodeOs from "node:os"
import type { BackupSummary } from "../../storage/sqlite/backup/backup.js"
import { commandModule } from "../lazy.js"
import { json } from "../options.js"
import { note, printAs } from "../output.js"
import { userProgress } from "../progress.js"
import { backupFailure, dataRootOption, dataRootOrSetting, megabytes } from "./backupShared.js"

/** A backup is background work beside a serving process: the scheduler gives the service's requests the CPU first. */
const BACKUP_NICENESS = 10

const options = {
  to: Options.directory("to", { exists: "either" }).pipe(Options.withDescription("The new or empty directory to write the backup into")),
  dataRoot: dataRootOption("The data root to back up (default SERVICE_DATA_ROOT); a service may be running on it"),
  json
}

const readable = (summary: BackupSummary) =>
  Console.log([
    `backup   ${summary.target}`,
    `users    ${summary.users}`,
    `size     ${megabytes(summary.bytes)}`,
    ...(summary.erased.length === 0 ? [] : [`erased during the backup, not copied: ${summary.erased.join(", ")}`]),
    ...(summary.ignored.length === 0 ? [] : [`not user stores (no valid user_id), not copied: ${summary.ignored.join(", ")}`])
  ].join("\n"))

export const backupCommand = Command.make("backup", options, (input) =>
  Effect.gen(function*() {
    const dataRoot = yield* dataRootOrSetting(input.dataRoot)
    yield* Effect.sync(() => NodeOs.setPriority(BACKUP_NICENESS))
    const { backupDataRoot } = yield* commandModule("backup", () => import("../../storage/sqlite/backup/backup.js"))
    const summary = yield* backupDataRoot({ dataRoot, target: input.to, onProgress: userProgress(process.stderr.isTTY === true) }).pipe(
      Effect.mapError(backupFailure)
    )
    yield* note(`backed up ${summary.users} users (${megabytes(summary.bytes)}) into ${summary.target}; check it with: memory-service verify ${summary.target}`)
    yield* printAs(input.json, summary, readable)
  })).pipe(Command.withDescription("Back up a data root (SQLite) while the service runs: each store copied as of one moment, a manifest written last"))
