import { beforeAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { CliRun } from "./support/cli.js"
import { cli, filesUnder, ingestSession } from "./support/backups.js"
import { startProcess } from "./support/processes.js"
import { STORE_SCHEMA_VERSION } from "../src/version.js"
import { API_KEY, tempDataRoot } from "./support/server.js"

/** Whether this machine lets a process mount a tmpfs in a mount namespace of its own (root with CAP_SYS_ADMIN). */
const canMount = spawnSync("unshare", ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).status === 0

/**
 * Runs the CLI in a private mount namespace where `mountPoint` is a fresh tmpfs mounted with
 * `options` (a small size: a disk that fills; `ro`: one that cannot be written). What the tmpfs
 * holds once the CLI exits follows on stdout as `left: <names>`.
 */
const cliOnTmpfs = (args: ReadonlyArray<string>, mountPoint: string, options: string) =>
  cli(args, {
    within: [
      "unshare", "-m", "sh", "-c",
      `mp=$1; opts=$2; shift 2; mount -t tmpfs -o "$opts" tmpfs "$mp" || exit 97; "$@"; code=$?; echo "left: $(ls -A "$mp")"; exit $code`,
      "sh", mountPoint, options
    ]
  })

/** A refusal: exit 1, one line `<code>: <message>` on stderr, no stack. */
const expectRefused = (run: CliRun, code: string) => {
  expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: 1, stderr: expect.stringMatching(new RegExp(`^${code}: `)) })
  expect(run.stderr).not.toMatch(/\n\s+at /)
}

const copyOf = (backup: string) => {
  const copy = NodePath.join(tempDataRoot(), "copy")
  NodeFs.cpSync(backup, copy, { recursive: true })
  return copy
}

describe("backup, verify and restore: refusals and failures", () => {
  let dataRoot = ""
  let backup = ""

  beforeAll(async () => {
    dataRoot = tempDataRoot()
    const server = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot })
    for (const userId of ["ana", "ben", "cy"]) await ingestSession(server.port, userId, 0)
    server.child.kill("SIGTERM")
    await server.exited
    backup = NodePath.join(tempDataRoot(), "backup")
    expect((await cli(["backup", "--to", backup, "--data-root", dataRoot])).code).toBe(0)
  }, 120_000)

  it("a missing data root, a missing backup and a non-empty target are refused by name", async () => {
    expectRefused(await cli(["backup", "--to", NodePath.join(tempDataRoot(), "b"), "--data-root", NodePath.join(tempDataRoot(), "none")]), "data_root_missing")
    expectRefused(await cli(["verify", NodePath.join(tempDataRoot(), "none")]), "backup_missing")
    expectRefused(await cli(["restore", "--from", NodePath.join(tempDataRoot(), "none"), "--data-root", NodePath.join(tempDataRoot(), "r")]), "backup_missing")

    const occupied = tempDataRoot()
    NodeFs.writeFileSync(NodePath.join(occupied, "notes.txt"), "mine")
    expectRefused(await cli(["backup", "--to", occupied, "--data-root", dataRoot]), "backup_target_not_empty")
    expect(NodeFs.readdirSync(occupied)).toEqual(["notes.txt"])

    const inside = NodePath.join(dataRoot, "backups")
    expectRefused(await cli(["backup", "--to", inside, "--data-root", dataRoot]), "backup_target_inside_data_root")
    expect(NodeFs.existsSync(inside)).toBe(false)
  }, 120_000)

  it("restore refuses a non-empty data root and leaves it as it was", async () => {
    const files = filesUnder(dataRoot)
    expectRefused(await cli(["restore", "--from", backup, "--data-root", dataRoot]), "restore_target_not_empty")
    expect(filesUnder(dataRoot)).toEqual(files)
  }, 120_000)

  it("verify names every difference from the manifest and restore refuses such a backup", async () => {
    const tampered = copyOf(backup)
    const manifestPath = NodePath.join(tampered, "manifest.json")
    const manifest = JSON.parse(NodeFs.readFileSync(manifestPath, "utf8")) as {
      users: Array<{ user_id: string; schema_version: number; rows: Record<string, number> }>
    }
    manifest.users[1]!.rows.turns = 99
    manifest.users[1]!.schema_version = 42
    NodeFs.writeFileSync(manifestPath, JSON.stringify(manifest))
    const store = NodePath.join(tampered, "cy", "store.db")
    const bytes = NodeFs.readFileSync(store)
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff
    NodeFs.writeFileSync(store, bytes)
    NodeFs.rmSync(NodePath.join(tampered, "ana"), { recursive: true })

    const verify = await cli(["verify", tampered])
    expectRefused(verify, "backup_mismatch")
    expect(verify.stderr).toContain("user 'ana': ")
    expect(verify.stderr).toContain("is missing")
    expect(verify.stderr).toContain("user 'ben': turns has 3 rows, the manifest says 99")
    expect(verify.stderr).toContain(`user 'ben': schema version ${STORE_SCHEMA_VERSION}, the manifest says 42`)
    expect(verify.stderr).toMatch(/user 'cy': its sha256 is [0-9a-f]{64}, the manifest says/)

    const parent = tempDataRoot()
    expectRefused(await cli(["restore", "--from", tampered, "--data-root", NodePath.join(parent, "restored")]), "backup_mismatch")
    expect(NodeFs.readdirSync(parent)).toEqual([])
  }, 120_000)

  it("a manifest that is not one, or names a directory no user_id can, is refused", async () => {
    const broken = copyOf(backup)
    NodeFs.writeFileSync(NodePath.join(broken, "manifest.json"), "{\"format\":")
    expectRefused(await cli(["verify", broken]), "backup_manifest_invalid")

    const escaping = copyOf(backup)
    const manifestPath = NodePath.join(escaping, "manifest.json")
    const manifest = JSON.parse(NodeFs.readFileSync(manifestPath, "utf8")) as { users: Array<{ user_id: string }> }
    manifest.users[0]!.user_id = "../outside"
    NodeFs.writeFileSync(manifestPath, JSON.stringify(manifest))
    const run = await cli(["verify", escaping])
    expectRefused(run, "backup_manifest_invalid")
    expect(run.stderr).toContain("not a valid user_id")
  }, 120_000)

  it("a store another process keeps locked is store_locked, once SQLite's wait is over", async () => {
    const holder = new Database(NodePath.join(dataRoot, "ben", "store.db"))
    try {
      holder.pragma("locking_mode = EXCLUSIVE")
      holder.exec("BEGIN EXCLUSIVE")
      const run = await cli(["backup", "--to", NodePath.join(tempDataRoot(), "backup"), "--data-root", dataRoot])
      expectRefused(run, "store_locked")
      expect(run.stderr).toContain(NodePath.join(dataRoot, "ben", "store.db"))
    } finally {
      holder.close()
    }
  }, 120_000)

  it("draws its progress on stderr when it is a terminal", async () => {
    const target = NodePath.join(tempDataRoot(), "backup")
    // `script` gives the CLI a terminal; what the terminal showed is on its stdout.
    const run = await cli(["backup", "--to", target, "--data-root", dataRoot], {
      within: ["sh", "-c", "exec script -qec \"$*\" /dev/null", "sh"]
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("[------------------------] 0/3 users  ana")
    expect(run.stdout).toContain("[########################] 3/3 users")
  }, 120_000)

  it.runIf(canMount)("a directory that cannot be written is not_writable; a full disk is disk_full, and a restore leaves nothing behind", async () => {
    const mountPoint = tempDataRoot()
    const readOnly = await cliOnTmpfs(["backup", "--to", NodePath.join(mountPoint, "backup"), "--data-root", dataRoot], mountPoint, "size=1m,ro")
    expectRefused(readOnly, "not_writable")

    const full = await cliOnTmpfs(["backup", "--to", NodePath.join(mountPoint, "backup"), "--data-root", dataRoot], mountPoint, "size=160k")
    expectRefused(full, "disk_full")
    expect(full.stderr).toContain("no space left on the device")

    const restore = await cliOnTmpfs(["restore", "--from", backup, "--data-root", NodePath.join(mountPoint, "restored")], mountPoint, "size=160k")
    expectRefused(restore, "disk_full")
    expect(restore.stdout.trim()).toBe("left:")
  }, 120_000)
})
