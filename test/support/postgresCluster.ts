import type { TestProject } from "vitest/node"
import { startCluster } from "../../scripts/postgres/cluster.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL of the throwaway cluster the tests share; each suite makes its own databases in it. */
    postgresUrl: string
  }
}

/** Vitest global setup: one throwaway PostgreSQL cluster for the whole run, removed at the end. */
export default async function setup(project: TestProject) {
  const cluster = await startCluster({ fsync: false })
  project.provide("postgresUrl", cluster.url)
  return cluster.stop
}
