import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { withClient } from "../../scripts/postgres/cluster.js"
import { postgresStorage } from "../../src/storage/postgres/PostgresStorage.js"
import { UserStore } from "../../src/storage/UserStore.js"
import { freshDatabase } from "../support/postgres.js"
import { add, fact, recallQuery, session, writeSession } from "./fixtures.js"

const TURN = "I live in Lyon. My PIN is 4417."

const query = (url: string, text: string) => Effect.promise(() => withClient(url, async (client) => (await client.query(text)).rows))

describe("PostgreSQL: a database written before forgetting reached the turns", () => {
  it.effect("takes the words of the memories archived back then out of their turns, and finished jobs' payloads, when it is migrated", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const storage = () => postgresStorage({ url: Redacted.make(url), poolMax: 2 })
      const written = yield* writeSession("alice", session("s1", [TURN], [add(fact("Alice lives in Lyon")), add(fact("Alice's PIN is 4417"))]))
        .pipe(Effect.provide(storage()))
      // As the schema and an archive were before: the turn untouched, no column for its recorded text nor the indexes forgetting reads by.
      yield* query(url, `UPDATE facts SET status = 'archived' WHERE fact_id = '${written.facts[1]!.factId}'`)
      yield* query(url, `ALTER TABLE turns DROP COLUMN recorded_content`)
      yield* query(url, `DROP INDEX facts_by_superseded, facts_profiles, spans_by_turn, sources_by_span, events_by_memory`)
      yield* query(url, `DROP TABLE webhook_outbox, webhook_queue, fact_vectors_staged, turn_vectors_staged`)
      yield* query(url, `DROP TRIGGER facts_staged_vector_stale ON facts`)
      yield* query(url, `DROP TRIGGER turns_staged_vector_stale ON turns`)
      yield* query(url, `DROP FUNCTION webhook_outbox_fill, staged_vector_stale`)
      yield* query(url, `ALTER TABLE events DROP COLUMN agent_id, DROP COLUMN run_id, DROP COLUMN project_id`)
      yield* query(url, `ALTER TABLE request_log DROP COLUMN key_id`)
      yield* query(url, `DELETE FROM schema_migrations WHERE id >= 5`)
      // A job that finished before then kept its payload; one still to run keeps it now too.
      for (const [id, status] of [["done", "succeeded"], ["waiting", "pending"]]) {
        yield* query(url, `INSERT INTO jobs (job_id, kind, status, user_id, payload, created_at) VALUES ('${id}', 'ingest', '${status}', 'alice', '{"messages":["${TURN}"]}', 'now')`)
      }

      const lexicalTurns = (terms: ReadonlyArray<string>) =>
        Effect.flatMap(UserStore, (store) =>
          Effect.map(store.recall("alice", recallQuery({ terms })), (legs) => legs._tag === "Some" ? legs.value.lexicalTurns.map((turn) => turn.row.content) : []))
      const found = yield* Effect.all([lexicalTurns(["4417"]), lexicalTurns(["lyon"])]).pipe(Effect.provide(storage()))
      expect(found).toEqual([[], ["I live in Lyon. […]"]])
      expect(yield* query(url, `SELECT content, recorded_content FROM turns`)).toEqual([{ content: "I live in Lyon. […]", recorded_content: TURN }])
      // Events written before they carried scope are unstamped: visible to every scope.
      expect(yield* query(url, `SELECT DISTINCT agent_id, run_id, project_id FROM events`)).toEqual([{ agent_id: null, run_id: null, project_id: null }])
      expect(yield* query(url, `SELECT job_id, payload FROM jobs ORDER BY job_id`)).toEqual([
        { job_id: "done", payload: "{}" },
        { job_id: "waiting", payload: `{"messages":["${TURN}"]}` }
      ])
    }))
})
