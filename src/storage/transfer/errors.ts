import { Schema } from "effect"

/** One end could not be opened: its data root is locked, its database unreachable, or its schema newer than this build's. */
export class MigrationRefused extends Schema.TaggedError<MigrationRefused>()("MigrationRefused", {
  code: Schema.String,
  message: Schema.String
}) {}

/** A statement on one end failed; the message never holds the database's password. */
export class MigrationStoreFailed extends Schema.TaggedError<MigrationStoreFailed>()("MigrationStoreFailed", {
  message: Schema.String
}) {}

/** The target holds data for a user (or in its control plane, `user_id` null) that the source does not: nothing of it is overwritten. */
export class MigrationConflict extends Schema.TaggedError<MigrationConflict>()("MigrationConflict", {
  user_id: Schema.NullOr(Schema.String),
  table: Schema.String,
  message: Schema.String
}) {}

/** After the copy, a table of a user (or of the control plane, `user_id` null) has another row count on each end. */
export class MigrationCountMismatch extends Schema.TaggedError<MigrationCountMismatch>()("MigrationCountMismatch", {
  user_id: Schema.NullOr(Schema.String),
  table: Schema.String,
  source: Schema.Int,
  target: Schema.Int,
  message: Schema.String
}) {}

/**
 * Rows holding text no store keeps as it is (NUL, a lone surrogate), written before the service
 * refused such text: everything else was copied, and these rows (with the rest of their users'
 * data) were not.
 */
export class MigrationUnstorableText extends Schema.TaggedError<MigrationUnstorableText>()("MigrationUnstorableText", {
  rows: Schema.Array(Schema.Struct({
    user_id: Schema.NullOr(Schema.String),
    table: Schema.String,
    id: Schema.String,
    column: Schema.String,
    reason: Schema.Literal("nul", "lone_surrogate")
  })),
  message: Schema.String
}) {}

export type MigrationError = MigrationRefused | MigrationStoreFailed | MigrationConflict | MigrationCountMismatch | MigrationUnstorableText
