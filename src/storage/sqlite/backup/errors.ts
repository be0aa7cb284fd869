import { Schema } from "effect"

/**
 * A backup, verify or restore that could not be done, with a stable code: the data root or the
 * backup is missing, the target is not empty or not writable, the disk is full, a store is
 * locked, or the backup is cut short or does not match its manifest.
 */
export class BackupFailed extends Schema.TaggedError<BackupFailed>()("BackupFailed", {
  code: Schema.String,
  message: Schema.String
}) {}
