import { ConfigProvider, Layer } from "effect"
import { AppConfig } from "../../src/config/AppConfig.js"
import { SqliteStorageLive } from "../../src/storage/sqlite/SqliteStorage.js"
import { API_KEY, tempDataRoot } from "../support/server.js"
import { storageContract } from "./contract.js"

storageContract({
  name: "SQLite",
  shared: false,
  fresh: (options) =>
    SqliteStorageLive.pipe(
      Layer.provide(AppConfig.layer),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
        ["SERVICE_API_KEY", API_KEY],
        ["SERVICE_DATA_ROOT", tempDataRoot()],
        ...(options?.webhooks === true ? [["SERVICE_WEBHOOK_URL", "http://127.0.0.1:9/hook"], ["SERVICE_WEBHOOK_SECRET", "contract"]] as const : [])
      ]))))
    )
})
