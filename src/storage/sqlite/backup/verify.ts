import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { BackupFailed } from "./errors.js"
import { existingDirectory, fileDigest } from "./files.js"
import { inspectStore, type StoreKind } from "./inspect.js"
import { controlCopy, type Manifest, readManifest, type StoreEntry, userCopy } from "./manifest.js"
import type { StoreProgress } from "./backup.js"

export interface VerifiedBackup {
  readonly manifest: Manifest
  readonly users: number
  readonly bytes: number
  /** Rows of each table over every user's store. */
  readonly rows: Readonly<Record<string, number>>
}

/** Problems shown in the failure's message; the count says how many there were in all. */
const SHOWN_PROBLEMS = 10

/** What differs between one copy and its manifest entry: presence, size, checksum, schema, counts, integrity. */
const checkCopy = (file: string, entry: StoreEntry, kind: StoreKind, label: string) =>
  Effect.gen(function*() {
    if (!NodeFs.existsSync(file)) return [`${label}: ${file} is missing`]
    const problems: Array<string> = []
    const { bytes, sha256 } = yield* fileDigest(file)
    if (bytes !== entry.bytes) problems.push(`${label}: ${bytes} bytes, the manifest says ${entry.bytes}`)
    if (sha256 !== entry.sha256) problems.push(`${label}: its sha256 is ${sha256}, the manifest says ${entry.sha256}`)
    const read = yield* Effect.either(inspectStore(file, kind, { integrity: true }))
    if (read._tag === "Left") return [...problems, `${label}: cannot be read (${read.left})`]
    const { inspection, problems: integrity } = read.right
    if (inspection.schemaVersion !== entry.schema_version) {
      problems.push(`${label}: schema version ${inspection.schemaVersion}, the manifest says ${entry.schema_version}`)
    }
    for (const table of new Set([...Object.keys(entry.rows), ...Object.keys(inspection.rows)])) {
      const [found, recorded] = [inspection.rows[table], entry.rows[table]]
      if (found !== recorded) problems.push(`${label}: ${table} has ${found ?? "no"} rows, the manifest says ${recorded ?? "none"}`)
    }
    for (const line of integrity) problems.push(`${label}: integrity_check: ${line}`)
    return problems
  })

/**
 * Checks a backup against its manifest: every copy present, of the recorded size and checksum,
 * and, opened read-only, of the recorded schema version and row counts and passing
 * `PRAGMA integrity_check`. Any difference fails with all of them listed.
 */
export const verifyBackup = (directory: string, onProgress: (progress: StoreProgress) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    yield* existingDirectory(directory, "backup_missing", "the backup")
    const manifest = yield* readManifest(directory)
    const problems = [...yield* checkCopy(controlCopy(directory), manifest.control, "control", "control database")]
    const rows: Record<string, number> = {}
    const total = manifest.users.length
    for (const [done, entry] of manifest.users.entries()) {
      yield* onProgress({ done, total, current: entry.user_id })
      problems.push(...yield* checkCopy(userCopy(directory, entry.user_id), entry, "user", `user '${entry.user_id}'`))
      for (const [table, n] of Object.entries(entry.rows)) rows[table] = (rows[table] ?? 0) + n
    }
    yield* onProgress({ done: total, total, current: null })
    if (problems.length > 0) {
      const more = problems.length > SHOWN_PROBLEMS ? `\n… and ${problems.length - SHOWN_PROBLEMS} more` : ""
      return yield* new BackupFailed({
        code: "backup_mismatch",
        message: `${directory} does not match its manifest (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${problems.slice(0, SHOWN_PROBLEMS).join("\n")}${more}`
      })
    }
    return {
      manifest,
      users: total,
      bytes: manifest.users.reduce((sum, entry) => sum + entry.bytes, manifest.control.bytes),
      rows
    } satisfies VerifiedBackup
  })
