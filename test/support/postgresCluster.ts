import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import type { TestProject } from "vitest/node"

const PG_BIN = "/usr/lib/postgresql/15/bin"

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL of the throwaway cluster the tests share; each suite makes its own databases in it. */
    postgresUrl: string
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
    })
  })

/** initdb refuses to run as root: as root, the cluster is the postgres user's. */
const asOwner = (command: string, args: ReadonlyArray<string>) =>
  process.getuid?.() === 0
    ? execFileSync("runuser", ["-u", "postgres", "--", NodePath.join(PG_BIN, command), ...args], { stdio: "pipe" })
    : execFileSync(NodePath.join(PG_BIN, command), args, { stdio: "pipe" })

/**
 * Vitest global setup: a throwaway PostgreSQL 15 cluster (with pgvector) on a free loopback port
 * for the whole run, removed at the end.
 */
export default async function setup(project: TestProject) {
  if (!NodeFs.existsSync(NodePath.join(PG_BIN, "initdb")) || !NodeFs.existsSync("/usr/share/postgresql/15/extension/vector.control")) {
    throw new Error("PostgreSQL 15 with pgvector is missing: run scripts/setup-test-machine.sh, as the README's test command does")
  }
  const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "memory-pg-"))
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", directory])
  const data = NodePath.join(directory, "data")
  const port = await freePort()
  asOwner("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8"])
  asOwner("pg_ctl", [
    "-D", data, "-w", "-l", NodePath.join(directory, "log"), "start",
    "-o", `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`
  ])
  project.provide("postgresUrl", `postgres://postgres@127.0.0.1:${port}/postgres`)
  return () => {
    asOwner("pg_ctl", ["-D", data, "-m", "immediate", "stop"])
    NodeFs.rmSync(directory, { recursive: true, force: true })
  }
}
