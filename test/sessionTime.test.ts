import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseSessionTime } from "../src/domain/sessionTime.js"

const now = new Date(2026, 10, 22, 9, 30, 15)

describe("session_time", () => {
  it("keeps the precision it was given", () => {
    const cases: Array<[string | number | null | undefined, string]> = [
      ["2024", "2024"],
      ["2024-03", "2024-03"],
      ["2024-03-05", "2024-03-05"],
      ["2024-03-05T14:07", "2024-03-05T14:07"],
      ["2024-03-05T14:07:09", "2024-03-05T14:07:09"],
      ["2024-03-05 14:07:09.123", "2024-03-05T14:07:09"],
      ["2023/05/08 (Mon) 13:56", "2023-05-08T13:56"],
      ["2023/5/8", "2023-05-08"],
      ["1:56 pm on 8 May, 2023", "2023-05-08T13:56"],
      ["12:05 am on 1 January, 2024", "2024-01-01T00:05"],
      [null, "2026-11-22T09:30:15"],
      [undefined, "2026-11-22T09:30:15"]
    ]
    for (const [input, expected] of cases) {
      expect(parseSessionTime(input, now), String(input)).toEqual(Either.right(expected))
    }
  })

  it("reads epoch seconds and offsets as local time", () => {
    const epoch = 1_700_000_000
    const local = new Date(epoch * 1000)
    const expected = `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, "0")}-${String(local.getDate()).padStart(2, "0")}T${String(local.getHours()).padStart(2, "0")}:${String(local.getMinutes()).padStart(2, "0")}:${String(local.getSeconds()).padStart(2, "0")}`
    expect(parseSessionTime(epoch, now)).toEqual(Either.right(expected))
    expect(parseSessionTime(String(epoch), now)).toEqual(Either.right(expected))
    expect(parseSessionTime(new Date(epoch * 1000).toISOString(), now)).toEqual(Either.right(expected))
  })

  it("refuses what is not a date", () => {
    for (const input of ["", "garbage", "2024-13-01", "2024-02-30", "2024-03-05T25:00", "13:00 pm on 8 May, 2023", Number.NaN]) {
      expect(Either.isLeft(parseSessionTime(input, now)), String(input)).toBe(true)
    }
  })
})
