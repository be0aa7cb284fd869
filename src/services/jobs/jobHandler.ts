import { Effect, Schema } from "effect"

/**
 * A job kind's handler: the stored payload decoded with the schema it was written with (a payload
 * that does not decode is a defect: this build wrote it), the work run, its result encoded for
 * the job record.
 */
export const jobHandler = <P, PI, R, RI, E, Rq>(
  payload: Schema.Schema<P, PI>,
  result: Schema.Schema<R, RI>,
  run: (decoded: P, jobId: string) => Effect.Effect<R, E, Rq>
) =>
(stored: unknown, jobId: string) =>
  Effect.flatMap(
    Schema.decodeUnknown(payload)(stored).pipe(Effect.orDie),
    (decoded) => Effect.map(run(decoded, jobId), Schema.encodeSync(result))
  )
