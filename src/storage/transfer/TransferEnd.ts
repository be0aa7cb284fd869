import type { Effect } from "effect"
import type { MigrationStoreFailed } from "./errors.js"
import type { ControlSnapshot, RowCounts, UserSnapshot } from "./records.js"

type Op<A> = Effect.Effect<A, MigrationStoreFailed>

/**
 * One end of a migration, implemented by each backend over its own files or database: it lists
 * and reads users' data and the control plane as records, writes them back, and counts rows.
 */
export interface TransferEnd {
  /** The end for messages: a data root's path, or the database's URL without its password. */
  readonly label: string
  /** Every user holding data, in id order. */
  readonly users: Op<ReadonlyArray<string>>
  /** The user's data; undefined when the end holds nothing for the user. */
  readonly readUser: (userId: string) => Op<UserSnapshot | undefined>
  /** In one transaction: what the end holds for the user is removed and the snapshot written, ids and seqs as they are. */
  readonly replaceUser: (snapshot: UserSnapshot) => Op<void>
  /** Rows of each user table, and vectors of facts and turns (`fact_vectors`, `turn_vectors`). */
  readonly countUser: (userId: string) => Op<RowCounts>
  readonly readControl: Op<ControlSnapshot>
  /** Appends rows to the control plane, in their order, in one transaction. */
  readonly appendControl: (rows: ControlSnapshot) => Op<void>
  readonly countControl: Op<RowCounts>
}
