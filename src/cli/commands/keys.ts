import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withClient } from "../client.js"
import { dataOptions } from "../options.js"
import { note, printAs, printTable } from "../output.js"

const listKeys = Command.make("list", dataOptions, ({ json, ...connection }) =>
  withClient(connection, "admin", (client) => client.listKeys({ urlParams: { include_revoked: true } })).pipe(
    Effect.flatMap((list) =>
      printAs(json, list, (l) =>
        printTable(
          ["ID", "NAME", "PREFIX", "CREATED", "LAST USED", "REVOKED"],
          l.keys.map((k) => [k.id, k.name, k.prefix, k.created_at, k.last_used_at, k.revoked_at ?? "no"])
        )))
  )).pipe(Command.withDescription("Named API keys (never the key itself)"))

const createKey = Command.make("create", { ...dataOptions, name: Args.text({ name: "name" }) }, ({ json, name, ...connection }) =>
  withClient(connection, "admin", (client) => client.createKey({ payload: { name } })).pipe(
    // The new key is what the caller asked for: it goes to stdout alone, the rest to stderr.
    Effect.flatMap((created) =>
      printAs(json, created, (c) =>
        Effect.zipRight(Console.log(c.api_key), note(`key ${c.key.id} (${c.key.name}) created. ${c.warning}`))))
  )).pipe(Command.withDescription("Mint a named key; it is shown this once"))

const revokeKey = Command.make("revoke", { ...dataOptions, keyId: Args.text({ name: "key_id" }) }, ({ json, keyId, ...connection }) =>
  withClient(connection, "admin", (client) => client.revokeKey({ path: { key_id: keyId } })).pipe(
    Effect.flatMap((key) => printAs(json, key, (k) => Console.log(`key ${k.id} (${k.name}) revoked at ${k.revoked_at ?? "?"}`)))
  )).pipe(Command.withDescription("Revoke a named key"))

export const keysCommand = Command.make("keys").pipe(
  Command.withDescription("Named API keys"),
  Command.withSubcommands([listKeys, createKey, revokeKey])
)
