import { type Runner, runnerOf } from "./root.js"

interface Entry {
  readonly name: string
  /** The module defining the command, loaded only when the command runs: the root with that command alone. */
  readonly load: () => Promise<Runner>
}

/** Every subcommand by name, with the module that defines it (src/cli/commands/index.ts lists them all for `--help`). */
export const COMMANDS: ReadonlyArray<Entry> = [
  { name: "serve", load: () => import("./serve.js").then((m) => runnerOf(m.serveCommand)) },
  { name: "health", load: () => import("./health.js").then((m) => runnerOf(m.healthCommand)) },
  { name: "add", load: () => import("./add.js").then((m) => runnerOf(m.addCommand)) },
  { name: "import", load: () => import("./import.js").then((m) => runnerOf(m.importCommand)) },
  { name: "export", load: () => import("./portability.js").then((m) => runnerOf(m.exportCommand)) },
  { name: "import-user", load: () => import("./portability.js").then((m) => runnerOf(m.importUserCommand)) },
  { name: "search", load: () => import("./retrieval.js").then((m) => runnerOf(m.searchCommand)) },
  { name: "context", load: () => import("./retrieval.js").then((m) => runnerOf(m.contextCommand)) },
  { name: "answer", load: () => import("./retrieval.js").then((m) => runnerOf(m.answerCommand)) },
  { name: "get", load: () => import("./memories.js").then((m) => runnerOf(m.getCommand)) },
  { name: "list", load: () => import("./memories.js").then((m) => runnerOf(m.listCommand)) },
  { name: "events", load: () => import("./events.js").then((m) => runnerOf(m.eventsCommand)) },
  { name: "supersede", load: () => import("./memories.js").then((m) => runnerOf(m.supersedeCommand)) },
  { name: "delete", load: () => import("./memories.js").then((m) => runnerOf(m.deleteCommand)) },
  { name: "delete-user", load: () => import("./memories.js").then((m) => runnerOf(m.deleteUserCommand)) },
  { name: "timeline", load: () => import("./graph.js").then((m) => runnerOf(m.timelineCommand)) },
  { name: "explore", load: () => import("./graph.js").then((m) => runnerOf(m.exploreCommand)) },
  { name: "refine", load: () => import("./graph.js").then((m) => runnerOf(m.refineCommand)) },
  { name: "job", load: () => import("./jobs.js").then((m) => runnerOf(m.jobCommand)) },
  { name: "dream", load: () => import("./dream.js").then((m) => runnerOf(m.dreamCommand)) },
  { name: "embed", load: () => import("./embed.js").then((m) => runnerOf(m.embedCommand)) },
  { name: "models", load: () => import("./models.js").then((m) => runnerOf(m.modelsCommand)) },
  { name: "keys", load: () => import("./keys.js").then((m) => runnerOf(m.keysCommand)) },
  { name: "stats", load: () => import("./admin.js").then((m) => runnerOf(m.statsCommand)) },
  { name: "usage", load: () => import("./admin.js").then((m) => runnerOf(m.usageCommand)) },
  { name: "metrics", load: () => import("./admin.js").then((m) => runnerOf(m.metricsCommand)) },
  { name: "config", load: () => import("./admin.js").then((m) => runnerOf(m.configCommand)) },
  { name: "requests", load: () => import("./admin.js").then((m) => runnerOf(m.requestsCommand)) },
  { name: "mcp", load: () => import("./mcp.js").then((m) => runnerOf(m.mcpCommand)) },
  { name: "migrate", load: () => import("./migrate.js").then((m) => runnerOf(m.migrateCommand)) },
  { name: "backup", load: () => import("./backup.js").then((m) => runnerOf(m.backupCommand)) },
  { name: "verify", load: () => import("./verify.js").then((m) => runnerOf(m.verifyCommand)) },
  { name: "restore", load: () => import("./restore.js").then((m) => runnerOf(m.restoreCommand)) }
]
