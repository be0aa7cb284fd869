import { Command } from "@effect/cli"
import { addCommand } from "./add.js"
import { backupCommand } from "./backup.js"
import { configCommand, metricsCommand, requestsCommand, statsCommand, usageCommand } from "./admin.js"
import { dreamCommand } from "./dream.js"
import { embedCommand } from "./embed.js"
import { eventsCommand } from "./events.js"
import { healthCommand } from "./health.js"
import { importCommand } from "./import.js"
import { exportCommand, importUserCommand } from "./portability.js"
import { jobCommand } from "./jobs.js"
import { keysCommand } from "./keys.js"
import { mcpCommand } from "./mcp.js"
import { migrateCommand } from "./migrate.js"
import { modelsCommand } from "./models.js"
import { exploreCommand, refineCommand, timelineCommand } from "./graph.js"
import { deleteCommand, deleteUserCommand, getCommand, listCommand, supersedeCommand } from "./memories.js"
import { answerCommand, contextCommand, searchCommand } from "./retrieval.js"
import { restoreCommand } from "./restore.js"
import { rootOnly } from "./root.js"
import { serveCommand } from "./serve.js"
import { verifyCommand } from "./verify.js"

/** Every command: what `--help`, completions and a mistyped command see. */
export const rootCommand = rootOnly.pipe(
  Command.withSubcommands([
    serveCommand,
    healthCommand,
    addCommand,
    importCommand,
    exportCommand,
    importUserCommand,
    searchCommand,
    contextCommand,
    answerCommand,
    getCommand,
    listCommand,
    eventsCommand,
    supersedeCommand,
    deleteCommand,
    deleteUserCommand,
    timelineCommand,
    exploreCommand,
    refineCommand,
    jobCommand,
    dreamCommand,
    embedCommand,
    modelsCommand,
    keysCommand,
    statsCommand,
    usageCommand,
    metricsCommand,
    configCommand,
    requestsCommand,
    mcpCommand,
    migrateCommand,
    backupCommand,
    verifyCommand,
    restoreCommand
  ])
)
