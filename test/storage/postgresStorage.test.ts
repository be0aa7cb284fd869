import { freshPostgresStorage } from "../support/postgres.js"
import { storageContract } from "./contract.js"

storageContract({ name: "PostgreSQL", shared: true, fresh: freshPostgresStorage })
