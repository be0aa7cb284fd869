import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { cli, filesUnder, ingestSession, readManifestFile, searchMarker } from "./support/backups.js"
import { baseEnv, type ServiceProcess, startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"
import { queryStore } from "./support/stores.js"

const ROOT = NodePath.resolve(import.meta.dirname, "..")
const TURNS_PER_SESSION = 3

const serve = (dataRoot: string) => startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })

const stop = async (server: ServiceProcess) => {
  server.child.kill("SIGKILL")
  await server.exited
}

/** Each session of a user's store with its turns. */
const sessionsOf = (dataRoot: string, userId: string) =>
  queryStore<{ session_id: string; turns: number }>(dataRoot, userId, "SELECT session_id, count(*) AS turns FROM turns GROUP BY session_id")

describe("backup, verify and restore of the embedded backend (real processes)", () => {
  it("a backup taken under a write load restores every user as of its cut: whole sessions, the manifest's counts, the same search results", async () => {
    const dataRoot = tempDataRoot()
    const users = ["ana", "ben", "cy.d", "dee_4"]
    const server = await serve(dataRoot)
    const written = new Map(users.map((userId) => [userId, 0]))
    try {
      for (const userId of users) await ingestSession(server.port, userId, 0, TURNS_PER_SESSION)
      written.forEach((_, userId) => written.set(userId, 1))
      // Sessions go to each user in order, so a store as of any moment holds sessions s0..s(k-1).
      let loading = true
      const load = (async () => {
        while (loading) {
          for (const userId of users) {
            const session = written.get(userId) ?? 0
            await ingestSession(server.port, userId, session, TURNS_PER_SESSION)
            written.set(userId, session + 1)
          }
        }
      })()
      await new Promise((resolve) => setTimeout(resolve, 300))
      const before = new Map(written)
      const backup = NodePath.join(tempDataRoot(), "backup")
      const run = await cli(["backup", "--to", backup, "--data-root", dataRoot])
      const during = new Map(written)
      loading = false
      await load
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^backed up 4 users/) })
      expect(users.some((userId) => (during.get(userId) ?? 0) > (before.get(userId) ?? 0))).toBe(true)

      expect((await cli(["verify", backup])).code).toBe(0)
      const restoredRoot = NodePath.join(tempDataRoot(), "restored")
      const restore = await cli(["restore", "--from", backup, "--data-root", restoredRoot])
      expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^restored 4 users/) })

      const manifest = readManifestFile(backup)
      expect(manifest.users.map((user) => user.user_id)).toEqual(users)
      const cut = new Map<string, number>()
      for (const entry of manifest.users) {
        const sessions = sessionsOf(restoredRoot, entry.user_id)
        const kept = sessions.length
        // No torn store: every session whole, and exactly the first `kept` ones.
        expect(sessions.map((session) => session.turns)).toEqual(sessions.map(() => TURNS_PER_SESSION))
        expect(sessions.map((session) => session.session_id).sort()).toEqual(Array.from({ length: kept }, (_, i) => `s${i}`).sort())
        expect(kept).toBeGreaterThanOrEqual(before.get(entry.user_id) ?? 0)
        expect(kept).toBeLessThanOrEqual(during.get(entry.user_id) ?? 0)
        expect(entry.rows.sessions).toBe(kept)
        expect(entry.rows.turns).toBe(kept * TURNS_PER_SESSION)
        expect(entry.rows.events).toBe(kept)
        cut.set(entry.user_id, kept)
      }

      // A server on the restored root serves each user as the source was at the user's cut.
      const restored = await serve(restoredRoot)
      try {
        for (const userId of users) {
          const kept = cut.get(userId) ?? 0
          for (const session of [0, kept - 1, kept]) {
            const found = await searchMarker(restored.port, userId, session)
            expect(found).toEqual(session < kept ? await searchMarker(server.port, userId, session) : [])
            if (session < kept) expect(found).toHaveLength(TURNS_PER_SESSION)
          }
        }
      } finally {
        await stop(restored)
      }
    } finally {
      await stop(server)
    }
  }, 240_000)

  it("a backup leaves its source's files as they were; at most SQLite's empty WAL and its index appear beside a store no service holds", async () => {
    const dataRoot = tempDataRoot()
    const server = await serve(dataRoot)
    await ingestSession(server.port, "ana", 0)
    await ingestSession(server.port, "ben", 0)
    // Stopped cleanly, the stores are checkpointed and nothing else writes to the root.
    server.child.kill("SIGTERM")
    await server.exited
    const files = filesUnder(dataRoot)
    const backup = NodePath.join(tempDataRoot(), "backup")
    expect((await cli(["backup", "--to", backup, "--data-root", dataRoot])).code).toBe(0)
    const after = filesUnder(dataRoot)
    expect(Object.fromEntries(Object.keys(files).map((path) => [path, after[path]]))).toEqual(files)
    const added = Object.keys(after).filter((path) => !(path in files))
    expect(added.filter((path) => !/\.db-(wal|shm)$/.test(path))).toEqual([])
    for (const wal of added.filter((path) => path.endsWith("-wal"))) expect(NodeFs.statSync(NodePath.join(dataRoot, wal)).size).toBe(0)
    expect(readManifestFile(backup).users.map((user) => user.user_id)).toEqual(["ana", "ben"])
  }, 120_000)

  it("a backup killed with SIGKILL midway has no manifest: verify rejects it and restore refuses it, creating nothing", async () => {
    const dataRoot = tempDataRoot()
    const server = await serve(dataRoot)
    const users = Array.from({ length: 240 }, (_, i) => `user-${String(i).padStart(3, "0")}`)
    try {
      for (let i = 0; i < users.length; i += 8) await Promise.all(users.slice(i, i + 8).map((userId) => ingestSession(server.port, userId, 0)))
      const backup = NodePath.join(tempDataRoot(), "backup")
      const child = spawn(process.execPath, ["dist/cli/main.js", "backup", "--to", backup, "--data-root", dataRoot], {
        cwd: ROOT,
        env: baseEnv(),
        stdio: "ignore"
      })
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)))
      // Killed as soon as the first user's copy is there: the other 239 are still to come.
      const firstCopy = NodePath.join(backup, users[0]!, "store.db")
      while (!NodeFs.existsSync(firstCopy)) await new Promise((resolve) => setTimeout(resolve, 2))
      child.kill("SIGKILL")
      expect(await exited).toBe("SIGKILL")
      expect(NodeFs.existsSync(NodePath.join(backup, "manifest.json"))).toBe(false)

      const verify = await cli(["verify", backup])
      expect({ code: verify.code, stdout: verify.stdout }).toEqual({ code: 1, stdout: "" })
      expect(verify.stderr).toMatch(/^backup_incomplete: .*no manifest\.json: the backup was cut short/)
      const parent = tempDataRoot()
      const restore = await cli(["restore", "--from", backup, "--data-root", NodePath.join(parent, "restored")])
      expect(restore.code).toBe(1)
      expect(restore.stderr).toMatch(/^backup_incomplete: /)
      expect(NodeFs.readdirSync(parent)).toEqual([])
    } finally {
      await stop(server)
    }
  }, 240_000)
})
