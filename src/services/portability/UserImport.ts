import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Either, Option, Stream } from "effect"
import { Conflict, PayloadTooLarge, ValidationError } from "../../api/errors.js"
import type { AuditContext } from "../../domain/audit.js"
import { type NewEvent, UNSCOPED } from "../../domain/records.js"
import { AppConfig } from "../../config/AppConfig.js"
import type { UserTable } from "../../storage/transfer/records.js"
import { UserStore } from "../../storage/UserStore.js"
import { HeaderRecord } from "./exportFormat.js"
import { decodeRecord, type InvalidLine, makeRecordValidation } from "./recordValidation.js"
import { span } from "../../util/span.js"

/** Records written per statement. */
const LINES_PER_BATCH = 500

/** The 422 naming the line. */
const invalidLine = ({ line, message }: InvalidLine) =>
  new ValidationError({
    message: `line ${line}: ${message}`,
    details: { line, errors: [{ type: "value_error", loc: ["body", line], msg: message }] }
  })

const importEvent = (header: HeaderRecord, loaded: Readonly<Record<UserTable, number>>, audit: AuditContext): NewEvent => ({
  type: "memory_add",
  memoryId: null,
  sessionId: null,
  reason: `imported from an export of user ${header.user_id} by ${audit.actor}`,
  details: { action: "import", source_user_id: header.user_id, exported_at: header.exported_at, schema_version: header.schema_version, loaded },
  scope: UNSCOPED
})

/**
 * Loads an export (exportFormat.ts) into a user without data, as one unit with its audit event.
 * The body is first written to a temporary file, within the import's size limit, so that the
 * load reads at the store's pace and never holds the body; every line is checked as it is
 * loaded, and the first invalid one undoes the whole load.
 */
export class UserImport extends Effect.Service<UserImport>()("Memory/UserImport", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const fs = yield* FileSystem.FileSystem
    const { maxImportBytes } = yield* AppConfig
    const tooLarge = new PayloadTooLarge({ message: `an import's body exceeds ${maxImportBytes} bytes`, details: { max_bytes: maxImportBytes } })

    /** The body in a file of the scope, refused past the limit. */
    const spool = <E>(body: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function*() {
        const file = yield* Effect.orDie(fs.makeTempFileScoped({ prefix: "memory-import-" }))
        const handle = yield* Effect.orDie(fs.open(file, { flag: "w" }))
        let received = 0
        // Past the limit the rest is read and dropped: a body left unread takes the connection,
        // and the answer with it.
        yield* Stream.runForEach(body, (bytes) => {
          received += bytes.length
          return received > maxImportBytes ? Effect.void : Effect.orDie(handle.writeAll(bytes))
        })
        if (received > maxImportBytes) return yield* tooLarge
        return file
      })

    /** Non-empty lines of the file with their numbers (from 1). */
    const linesOf = (file: string) =>
      fs.stream(file).pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.zipWithIndex,
        Stream.map(([text, index]) => ({ text, line: index + 1 })),
        Stream.filter(({ text }) => text.trim() !== ""),
        Stream.orDie
      )

    const readHeader = (file: string) =>
      Effect.gen(function*() {
        const first = yield* Stream.runHead(linesOf(file))
        if (Option.isNone(first)) return yield* invalidLine({ line: 1, message: "empty: an export begins with its header record" })
        const { line, text } = first.value
        const parsed = Either.try((): unknown => JSON.parse(text))
        const header = Either.isLeft(parsed)
          ? Either.left("not JSON")
          : Either.mapLeft(decodeRecord(HeaderRecord, parsed.right), (message) => `not an export header: ${message}`)
        return yield* Either.match(header, {
          onLeft: (message) => Effect.fail(invalidLine({ line, message })),
          onRight: (record) => Effect.succeed({ ...record, line })
        })
      })

    const load = <E>(params: { readonly user_id?: string | undefined }, body: Stream.Stream<Uint8Array, E>, audit: AuditContext) =>
      Effect.scoped(Effect.gen(function*() {
        const file = yield* spool(body)
        const header = yield* readHeader(file)
        const userId = params.user_id ?? header.user_id
        const validation = makeRecordValidation(header)
        let last = header.line
        const check = (line: number, refused: string | undefined) => refused === undefined ? Effect.void : Effect.fail(invalidLine({ line, message: refused }))
        const batches = linesOf(file).pipe(
          Stream.drop(1),
          Stream.mapEffect(({ line, text }) => {
            last = line
            return check(line, validation.record(text))
          }),
          Stream.concat(Stream.fromEffect(Effect.suspend(() => check(last + 1, validation.finish())))),
          Stream.grouped(LINES_PER_BATCH),
          Stream.mapConcat(validation.take)
        )
        const event = (loaded: Readonly<Record<UserTable, number>>) => importEvent(header, loaded, audit)
        const outcome = yield* store.portability.load(userId, { space: header.vectors, batches, event, audit })
        if (outcome === "Occupied") {
          return yield* new Conflict({
            message: `user ${userId} already has data: an import loads only into a user without any`,
            details: { user_id: userId }
          })
        }
        return { user_id: userId, source_user_id: header.user_id }
      })).pipe(span("UserImport.load"))

    return { load }
  }),
  dependencies: [NodeFileSystem.layer]
}) {}
