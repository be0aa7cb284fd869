import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ListMemoriesQuery, type Memory, UpdateMemoryRequest } from "../../api/MemoriesApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { memoryId, optionalField, optionalInteger, scopedOptions, scopeFields, userOptions } from "../options.js"
import { CONTENT_WIDTH, printAs, printPage, printRecord, truncate } from "../output.js"

const memoryRows = (memories: ReadonlyArray<Memory>) =>
  memories.map((m) => [m.id, m.kind, m.status, m.occurred_at, truncate(m.content, CONTENT_WIDTH)])
const MEMORY_HEADERS = ["ID", "KIND", "STATUS", "OCCURRED", "CONTENT"]

const printMemory = (memory: Memory) => printRecord({ ...memory })

/** Query strings carry numbers as text: the contract's query schema reads them back. */
const asQuery = (value: Option.Option<number>) => Option.map(value, String)

export const getCommand = Command.make("get", { ...userOptions, memoryId }, ({ json, memoryId, user, ...connection }) =>
  withClient(connection, "memories", (client) => client.get({ path: { memory_id: memoryId }, urlParams: { user_id: user } })).pipe(
    Effect.flatMap((memory) => printAs(json, memory, printMemory))
  )).pipe(Command.withDescription("One memory (superseded versions stay readable)"))

export const listCommand = Command.make(
  "list",
  { ...scopedOptions, limit: optionalInteger("limit", "Page size (1-500, default 50)"), offset: optionalInteger("offset", "Rows to skip") },
  ({ agentId, json, limit, offset, projectId, runId, user, ...connection }) =>
    Effect.gen(function*() {
      const urlParams = yield* request(ListMemoriesQuery, {
        user_id: user,
        ...scopeFields({ agentId, runId, projectId }),
        ...optionalField("limit", asQuery(limit)),
        ...optionalField("offset", asQuery(offset))
      })
      const page = yield* withClient(connection, "memories", (client) => client.list({ urlParams }))
      yield* printAs(json, page, (p) => printPage(MEMORY_HEADERS, memoryRows(p.memories), { offset: p.offset, total: p.total, noun: "memories" }))
    })
).pipe(Command.withDescription("Current memories of a user, oldest first"))

export const supersedeCommand = Command.make(
  "supersede",
  { ...userOptions, memoryId, content: Args.text({ name: "content" }) },
  ({ content, json, memoryId, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(UpdateMemoryRequest, { user_id: user, content })
      const result = yield* withClient(connection, "memories", (client) => client.update({ path: { memory_id: memoryId }, urlParams: {}, payload }))
      yield* printAs(json, result, (r) => Console.log(`${r.superseded_id} superseded by ${r.memory.id}: ${truncate(r.memory.content, CONTENT_WIDTH)}`))
    })
).pipe(Command.withDescription("Correct a memory: a new version supersedes it"))

export const deleteCommand = Command.make(
  "delete",
  { ...userOptions, memoryId, purge: Options.boolean("purge").pipe(Options.withDescription("Erase instead of archive (needs SERVICE_ALLOW_PURGE)")) },
  ({ json, memoryId, purge, user, ...connection }) =>
    withClient(connection, "memories", (client) => client.delete({ path: { memory_id: memoryId }, urlParams: { user_id: user, purge } })).pipe(
      Effect.flatMap((result) =>
        printAs(json, result, (r) =>
          Console.log(
            r.already_deleted ? `${r.id} was already deleted` : r.deleted ? `${r.id} ${r.purged ? "purged" : "archived"}` : `${r.id}: no such memory`
          )))
    )
).pipe(Command.withDescription("Archive (or --purge) a memory"))

export const deleteUserCommand = Command.make(
  "delete-user",
  { ...userOptions, purge: Options.boolean("purge").pipe(Options.withDescription("Erase the user's whole store (needs SERVICE_ALLOW_PURGE)")) },
  ({ json, purge, user, ...connection }) =>
    withClient(connection, "memories", (client) => client.deleteUser({ urlParams: { user_id: user, purge } })).pipe(
      Effect.flatMap((result) =>
        printAs(json, result, (r) =>
          Console.log(
            !r.deleted ? `${r.user_id}: no such user` : r.purged ? `${r.user_id}: store erased` : `${r.user_id}: ${r.archived} memories archived`
          )))
    )
).pipe(Command.withDescription("Archive (or --purge) every memory of a user"))
