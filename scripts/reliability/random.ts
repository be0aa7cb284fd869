/** The seeded generator the runs replay from (one copy, shared with the tiny test model). */
export { seededRandom } from "../../src/util/seededRandom.js"
