import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import type { FactCard } from "../../api/cards.js"
import { ExploreQuery, RefineRequest, TimelineQuery } from "../../api/GraphApi.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { optionalField, optionalInteger, userOptions } from "../options.js"
import { CONTENT_WIDTH, note, printAs, printTable, truncate } from "../output.js"

const cardRows = (cards: ReadonlyArray<FactCard>) =>
  cards.map((card) => [card.occurred_start ?? "", card.status, card.id, truncate(card.predicate_raw ?? card.content, CONTENT_WIDTH)])

const CARD_HEADERS = ["DATE", "STATUS", "ID", "STATEMENT"]

export const timelineCommand = Command.make(
  "timeline",
  { ...userOptions, entity: Args.text({ name: "entity" }) },
  ({ entity, json, user, ...connection }) =>
    Effect.gen(function*() {
      const urlParams = yield* request(TimelineQuery, { user_id: user, entity_id: entity })
      const timeline = yield* withClient(connection, "graph", (client) => client.entityTimeline({ urlParams }))
      yield* printAs(json, timeline, (t) => Effect.zipRight(printTable(CARD_HEADERS, cardRows(t.items)), Console.log(`${t.count} memories`)))
    })
).pipe(Command.withDescription("Every memory about an entity (name matched without case or accents), oldest first"))

export const exploreCommand = Command.make(
  "explore",
  {
    ...userOptions,
    start: Args.text({ name: "memory_id" }),
    depth: optionalInteger("depth", "Levels to walk (1-3, default 1)"),
    limit: optionalInteger("limit", "Most edges returned (1-100, default 25)")
  },
  ({ depth, json, limit, start, user, ...connection }) =>
    Effect.gen(function*() {
      const urlParams = yield* request(ExploreQuery, {
        user_id: user,
        start_id: start,
        ...optionalField("depth", Option.map(depth, String)),
        ...optionalField("limit", Option.map(limit, String))
      })
      const graph = yield* withClient(connection, "graph", (client) => client.explore({ urlParams }))
      yield* printAs(json, graph, (g) =>
        Effect.all([
          printTable(CARD_HEADERS, cardRows(g.nodes)),
          printTable(["TYPE", "FROM", "TO", "PREDICATE"], g.edges.map((e) => [e.edge_type, e.src_fact_id, e.dst_id, e.predicate_raw])),
          Console.log(`${g.count.nodes} memories, ${g.edges.length} of ${g.count.edges} edges`)
        ], { discard: true }))
    })
).pipe(Command.withDescription("The graph around a memory: memories linked through shared entities and edges"))

export const refineCommand = Command.make(
  "refine",
  {
    ...userOptions,
    query: Args.text({ name: "query" }),
    topK: optionalInteger("top-k", "Items to return (1-100, capped at 50)"),
    entity: Options.text("entity").pipe(Options.optional, Options.withDescription("Only memories about an entity whose name contains this")),
    session: Options.text("session-id").pipe(Options.optional, Options.withDescription("Only evidence from this session")),
    minConfidence: Options.float("min-confidence").pipe(Options.optional, Options.withDescription("Only facts at least this confident (0-1)")),
    from: Options.text("from").pipe(Options.optional, Options.withDescription("Occurred on or after (YYYY[-MM[-DD]])")),
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Occurred on or before (YYYY[-MM[-DD]])"))
  },
  ({ entity, from, json, minConfidence, query, session, to, topK, user, ...connection }) =>
    Effect.gen(function*() {
      const payload = yield* request(RefineRequest, {
        user_id: user,
        query,
        ...optionalField("top_k", topK),
        ...optionalField("entity", entity),
        ...optionalField("session_id", session),
        ...optionalField("min_confidence", minConfidence),
        ...optionalField("occurred_from", from),
        ...optionalField("occurred_to", to)
      })
      const refined = yield* withClient(connection, "graph", (client) => client.refine({ payload }))
      yield* printAs(json, refined, (r) =>
        Effect.all([
          printTable(["DATE", "ID", "CONTENT"], r.items.map((item) => [item.occurred_start ?? item.session_time ?? "", item.id, truncate(item.content, CONTENT_WIDTH)])),
          Console.log(`${r.items.length} of ${r.total_candidates} matching`),
          Effect.forEach(r.degraded, (d) => note(`degraded: ${d.code}: ${d.message}`), { discard: true })
        ], { discard: true }))
    })
).pipe(Command.withDescription("Search narrowed by entity, session, confidence and dates"))
