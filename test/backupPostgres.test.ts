import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { PG_BIN, withClient } from "../scripts/postgres/cluster.js"
import { LATEST_MIGRATION } from "../src/storage/postgres/migrations.js"
import { runCli } from "./support/cli.js"
import { freshDatabase } from "./support/postgres.js"
import { ingestTurn, startServer } from "./support/server.js"

const cli = (args: ReadonlyArray<string>) => runCli(args, { timeoutMs: 60_000 })

/** A PostgreSQL client tool of the tests' cluster, which must succeed. */
const pgTool = (tool: string, args: ReadonlyArray<string>) => {
  const run = spawnSync(NodePath.join(PG_BIN, tool), args, { encoding: "utf8" })
  expect({ tool, status: run.status, stderr: run.stderr }).toEqual({ tool, status: 0, stderr: "" })
}

interface Inspection {
  readonly database: string | null
  readonly schema_version: number
  readonly users: ReadonlyArray<{ readonly user_id: string; readonly rows: Record<string, number> }>
  readonly control: Record<string, number>
}

const tables = (url: string) =>
  Effect.promise(() =>
    withClient(url, async (client) => (await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")).rows.map((row) => row.name)))

describe("verify --database-url (PostgreSQL)", () => {
  it.scopedLive("reports the database's schema version and each user's row counts, as a migration counts them", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      // The server stops before the counts are taken: its request-log rows are written in batches, and a stop writes the rest.
      yield* Effect.scoped(Effect.gen(function*() {
        const { baseUrl } = yield* startServer({ SERVICE_DATABASE_URL: url })
        yield* ingestTurn(baseUrl, "ana", "I adopted a beagle.", "s1")
        yield* ingestTurn(baseUrl, "ana", "We moved to Porto.", "s2")
        yield* ingestTurn(baseUrl, "ben", "I drink green tea.", "s1")
      }))

      const run = yield* cli(["verify", "--database-url", url, "--json"])
      expect(run.code).toBe(0)
      const inspection = JSON.parse(run.stdout) as Inspection
      expect(inspection.schema_version).toBe(LATEST_MIGRATION)
      expect(inspection.users.map((user) => user.user_id)).toEqual(["ana", "ben"])
      expect(inspection.users[0]?.rows).toMatchObject({ sessions: 2, turns: 2, events: 2, facts: 0 })
      expect(inspection.users[1]?.rows).toMatchObject({ sessions: 1, turns: 1, events: 1 })
      expect(inspection.control).toEqual({ api_keys: 0, jobs: 0, request_log: 3 })

      const readable = yield* cli(["verify", "--database-url", url])
      expect(readable.stdout).toContain(`schema version ${LATEST_MIGRATION}, 2 users`)
      expect(readable.stdout).toMatch(/\nana\s+2\s+2\s/)

      // The documented way to back up a PostgreSQL deployment: what pg_restore brings back counts the same.
      const dump = NodePath.join(NodeOs.tmpdir(), `memory-dump-${process.pid}-${Date.now()}.pgdump`)
      pgTool("pg_dump", ["--format=custom", `--file=${dump}`, url])
      const restoredUrl = yield* freshDatabase
      pgTool("pg_restore", ["--no-owner", `--dbname=${restoredUrl}`, dump])
      const restored = yield* cli(["verify", "--database-url", restoredUrl, "--json"])
      expect(restored.code).toBe(0)
      expect({ ...(JSON.parse(restored.stdout) as Inspection), database: null }).toEqual({ ...inspection, database: null })
    }))

  it.effect("refuses a database this build never set up, and leaves it as it was", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const run = yield* cli(["verify", "--database-url", url])
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^store_schema_older: the database has schema 0, older than this build's/)
      expect(yield* tables(url)).toEqual([])
    }))

  it.effect("refuses a URL that is not PostgreSQL's, and both a backup and a database at once", () =>
    Effect.gen(function*() {
      const notPostgres = yield* cli(["verify", "--database-url", "mysql://user:hunter2@host/db"])
      expect(notPostgres.code).toBe(1)
      expect(notPostgres.stderr).toMatch(/^invalid_input: expected a PostgreSQL URL/)
      expect(notPostgres.stderr).not.toContain("hunter2")
      const both = yield* cli(["verify", "/tmp", "--database-url", "postgres://127.0.0.1/db"])
      expect(both.stderr).toMatch(/^invalid_input: give either a backup directory or --database-url/)
    }))
})
