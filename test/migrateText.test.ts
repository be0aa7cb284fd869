import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { withClient } from "../scripts/postgres/cluster.js"
import { runMigration } from "../src/storage/transfer/runMigration.js"
import { runCli } from "./support/cli.js"
import { freshDatabase } from "./support/postgres.js"
import { sendJson, startServer, tempDataRoot } from "./support/server.js"
import { withControlFile, withStoreFile } from "./support/stores.js"

const query = <Row>(url: string, text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => withClient(url, async (client) => (await client.query(text, [...params])).rows as Array<Row>))

/**
 * A data root as a build without the text rule could leave it: alice's data is clean; bob's
 * holds two sessions whose ids were lone surrogates and a turn with NUL; one named key's name
 * holds NUL. Written with better-sqlite3 directly, as that build's writes were.
 */
const rootWithUnstorableText = Effect.gen(function*() {
  const dataRoot = tempDataRoot()
  const scope = yield* Scope.make()
  const { baseUrl } = yield* startServer({ SERVICE_DATA_ROOT: dataRoot }).pipe(Scope.extend(scope))
  for (const userId of ["alice", "bob"]) {
    const written = yield* sendJson(`${baseUrl}/v1/memories`, {
      user_id: userId, session_id: "s1", infer: false, async_mode: false, messages: ["one", "two", "three"].map((n) => ({ content: `${userId} said ${n}` }))
    })
    expect(written.status).toBe(200)
  }
  for (const name of ["clean", "broken"]) expect((yield* sendJson(`${baseUrl}/v1/admin/keys`, { name })).status).toBe(201)
  yield* Scope.close(scope, Exit.void)
  withStoreFile(dataRoot, "bob", { readonly: false }, (db) => {
    const session = db.prepare("INSERT INTO sessions (session_id, session_time, created_at) VALUES (?, NULL, '2024-01-01T00:00:00Z')")
    session.run("\ud800")
    session.run("\ud801")
    db.prepare("UPDATE turns SET content = ? WHERE turn_id = ?").run("bob said \u0000 two", "s1_turn_2")
  })
  const brokenKey = withControlFile(dataRoot, { readonly: false }, (db) => {
    db.prepare("UPDATE api_keys SET name = ? WHERE name = 'broken'").run("bro\u0000ken")
    return db.prepare<[], { id: string }>("SELECT id FROM api_keys WHERE name <> 'clean'").get()?.id ?? ""
  })
  return { dataRoot, brokenKey }
})

describe("migrate with text no store keeps as it is", () => {
  it.scopedLive("copies everything else, then names each user and row left behind, in its message and its details", () =>
    Effect.gen(function*() {
      const { brokenKey, dataRoot } = yield* rootWithUnstorableText
      const url = yield* freshDatabase
      const run = yield* runCli(["migrate", "--to", url, "--data-root", dataRoot], { timeoutMs: 60_000 })
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^migrate_unstorable_text: 4 rows hold text no store keeps as it is/)
      const lines = run.stderr.trimEnd().split("\n").slice(1)
      expect(lines).toEqual([
        "user 'bob', table sessions, row \"\\ud800\": column session_id holds a lone UTF-16 surrogate",
        "user 'bob', table sessions, row \"\\ud801\": column session_id holds a lone UTF-16 surrogate",
        "user 'bob', table turns, row \"s1_turn_2\": column content holds a NUL character (U+0000)",
        `control plane, table api_keys, row "${brokenKey}": column name holds a NUL character (U+0000)`
      ])
      // The rest is there: alice whole, bob not at all (his rows refer to each other), the clean key.
      expect(yield* query(url, "SELECT user_id, count(*)::int AS n FROM turns GROUP BY user_id")).toEqual([{ user_id: "alice", n: 3 }])
      expect(yield* query(url, "SELECT name FROM api_keys")).toEqual([{ name: "clean" }])

      // A second run finds alice copied, and reports the same rows as data: user, table, row id, column.
      const failure = yield* Effect.flip(runMigration({ direction: "to_postgres", url: Redacted.make(url), dataRoot, onProgress: () => Effect.void }))
      expect(failure._tag).toBe("MigrationUnstorableText")
      expect(failure._tag === "MigrationUnstorableText" ? failure.rows : []).toEqual([
        { user_id: "bob", table: "sessions", id: "\"\\ud800\"", column: "session_id", reason: "lone_surrogate" },
        { user_id: "bob", table: "sessions", id: "\"\\ud801\"", column: "session_id", reason: "lone_surrogate" },
        { user_id: "bob", table: "turns", id: "\"s1_turn_2\"", column: "content", reason: "nul" },
        { user_id: null, table: "api_keys", id: JSON.stringify(brokenKey), column: "name", reason: "nul" }
      ])
      expect(yield* query(url, "SELECT count(*)::int AS n FROM turns")).toEqual([{ n: 3 }])
    }), 120_000)
})
