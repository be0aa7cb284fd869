import { execFile, execFileSync } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { cleanUpAfterExit } from "../cleanUpAfterExit.js"
import { freePort } from "../freePort.js"
import Pg from "pg"

export const PG_BIN = "/usr/lib/postgresql/15/bin"

export interface Cluster {
  /** A superuser URL of the cluster's `postgres` database. */
  readonly url: string
  /** The server's log file, removed with the cluster by `stop`. */
  readonly log: string
  /** The postmaster's process id (from its pid file), whose children are the backends and workers. */
  readonly pid: () => number
  /** Stops the server at once, as a crash would, and removes the cluster. */
  readonly stop: () => void
  /**
   * Stops the server at once, keeping the cluster; `start` brings it back on the same port. Both
   * leave the caller's event loop running, so that its clients see the outage as a service would.
   */
  readonly halt: () => Promise<void>
  readonly start: () => Promise<void>
}

/** initdb refuses to run as root: as root, the cluster is the postgres user's. */
const ownerCommand = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", NodePath.join(PG_BIN, command), ...args]]
    : [NodePath.join(PG_BIN, command), [...args]]

const asOwner = (command: string, args: ReadonlyArray<string>) => execFileSync(...ownerCommand(command, args), { stdio: "pipe" })

const asOwnerAsync = (command: string, args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) =>
    execFile(...ownerCommand(command, args), (error) => error === null ? resolve() : reject(error)))

/**
 * A throwaway PostgreSQL 15 cluster (pgvector installed) on a free loopback port, trusting local
 * connections; `stop` removes it, and so does a watcher once this process has ended without
 * calling it (an interrupted test run, a killed benchmark): pg_ctl's server outlives its caller.
 * For tests and benchmarks, never for data: tests may turn fsync off, benchmarks keep it.
 */
export const startCluster = async (options: { readonly fsync: boolean }): Promise<Cluster> => {
  if (!NodeFs.existsSync(NodePath.join(PG_BIN, "initdb")) || !NodeFs.existsSync("/usr/share/postgresql/15/extension/vector.control")) {
    throw new Error("PostgreSQL 15 with pgvector is missing: run `bash scripts/setup-test-machine.sh` (as root or with sudo; the README's test command runs it first), which installs them")
  }
  const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-pg-"))
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", directory])
  const data = NodePath.join(directory, "data")
  const port = await freePort()
  const log = NodePath.join(directory, "log")
  asOwner("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8"])
  const startArgs = [
    "-D", data, "-w", "-l", log, "start",
    "-o", `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${options.fsync ? "on" : "off"}`
  ]
  const haltArgs = ["-D", data, "-m", "immediate", "stop"]
  asOwner("pg_ctl", startArgs)
  const watcher = cleanUpAfterExit(directory, ownerCommand("pg_ctl", haltArgs).flat())
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    log,
    pid: () => Number(NodeFs.readFileSync(NodePath.join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    stop: () => {
      watcher.kill()
      // A halted server has no pid file left: there is nothing to stop then.
      if (NodeFs.existsSync(NodePath.join(data, "postmaster.pid"))) asOwner("pg_ctl", haltArgs)
      NodeFs.rmSync(directory, { recursive: true, force: true })
    },
    halt: () => asOwnerAsync("pg_ctl", haltArgs),
    start: () => asOwnerAsync("pg_ctl", startArgs)
  }
}

/** Runs `use` on a connection of its own to the database at `url`, closed whatever happens. */
export const withClient = async <A>(url: string, use: (client: Pg.Client) => Promise<A>): Promise<A> => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/** A new, empty database in a cluster; its URL. */
export const createDatabase = async (clusterUrl: string) => {
  const name = `db_${NodeCrypto.randomUUID().replaceAll("-", "")}`
  await withClient(clusterUrl, (admin) => admin.query(`CREATE DATABASE ${name}`))
  const url = new URL(clusterUrl)
  url.pathname = `/${name}`
  return url.toString()
}
