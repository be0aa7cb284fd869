import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { UserInventory } from "../UserStore.js"
import { fileBytes } from "./files.js"
import { storeDirectory, storeFilePath } from "./storeFile.js"
import { factStatusCounts } from "./user/statusCounts.js"

/** The user directories of a data root, in id order (the control plane's starts with a dot). */
export const userDirectories = (dataRoot: string) =>
  NodeFs.readdirSync(dataRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort()

/** Walks the data root: every user directory, the bytes it holds and its store's facts by status. */
export const userInventory = (dataRoot: string): UserInventory => {
  const users = userDirectories(dataRoot)
  const memoriesByStatus: Record<string, number> = {}
  for (const userId of users) {
    const file = storeFilePath(dataRoot, userId)
    if (!NodeFs.existsSync(file)) continue
    for (const [status, n] of Object.entries(factStatusCounts(file))) memoriesByStatus[status] = (memoriesByStatus[status] ?? 0) + n
  }
  return {
    users: users.map((userId) => {
      const directory = storeDirectory(dataRoot, userId)
      return { user_id: userId, bytes: NodeFs.readdirSync(directory).reduce((sum, name) => sum + fileBytes(NodePath.join(directory, name)), 0) }
    }),
    memoriesByStatus
  }
}
