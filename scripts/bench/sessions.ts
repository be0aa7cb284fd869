/**
 * Small, distinct conversations for the benchmarks that ingest with extraction: session i has six
 * turns, three user turns of two factual sentences each (six facts for the stub's brain) and
 * three assistant replies that state nothing about the user. The same i gives the same session.
 */
const FIRST = [
  "Ana", "Tomas", "Priya", "Kenji", "Lucia", "Omar", "Freya", "Mateo", "Ingrid", "Dev", "Chloe", "Rafael",
  "Noor", "Henrik", "Aiko", "Felix", "Zara", "Pablo", "Elin", "Jonah", "Mira", "Soren", "Leila", "Bruno",
  "Hana", "Ivan", "Clara", "Tariq", "Nadia", "Oscar", "Yuki", "Marta", "Emeka", "Lena", "Diego", "Sana",
  "Pieter", "Ruth", "Anil", "Greta", "Kofi", "Alba", "Viktor", "Imani", "Luca", "Maya", "Jens", "Carmen"
]
const LAST = [
  "Silva", "Novak", "Okafor", "Tanaka", "Moreau", "Haddad", "Lindqvist", "Rossi", "Kowalski", "Mehta", "Brennan",
  "Ferreira", "Yilmaz", "Schmidt", "Dubois", "Nakamura", "Castillo", "Andersen", "Petrov", "Walsh", "Costa",
  "Ibrahim", "Kaur", "Larsen", "Romano", "Sato", "Vargas", "Nilsson", "Osei", "Fischer", "Morales", "Jensen",
  "Horvat", "Chen", "Bauer", "Quinn", "Reyes", "Berg", "Lopez", "Marsh", "Duarte", "Keller", "Adeyemi",
  "Holm", "Conti", "Park", "Wagner", "Soto", "Eriksen", "Popescu", "Hughes", "Abbas", "Varga", "Lund",
  "Mendes", "Farouk", "Kato", "Ortiz", "Weber", "Nowak", "Banerjee", "Strand", "Greco", "Mwangi"
]
const CITIES = ["Lisbon", "Porto", "Valencia", "Lyon", "Ghent", "Bergen", "Krakow", "Turin", "Leeds", "Utrecht", "Graz", "Malmo", "Cork", "Bilbao", "Tartu", "Brno"]
const SUBJECTS = ["chemistry", "history", "music", "geography", "biology", "drama", "physics", "art"]
const TOPICS = ["sailing", "bread baking", "Roman history", "birdwatching", "chess openings", "urban gardening", "jazz piano", "bookbinding"]
const FOODS = ["Ethiopian", "Georgian", "Peruvian", "Sichuan", "Lebanese", "Basque", "Korean", "Oaxacan"]
const STREETS = ["Harbour", "Mill", "Chapel", "Orchard", "Station", "Bridge", "Castle", "Market"]
const PLACES = ["the old harbour", "the botanical garden", "the central station", "the river park", "the university campus", "the fish market"]
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

// Six people per session, all distinct for the first 48 × 64 sessions' worth: the stub's brain
// reconciles statements by their first three words, so distinct names make it mostly add.
const person = (session: number, k: number) => {
  const j = session * 6 + k
  return `${FIRST[j % FIRST.length]!} ${LAST[Math.floor(j / FIRST.length) % LAST.length]!}`
}
const pick = <T>(values: ReadonlyArray<T>, i: number) => values[i % values.length]!

interface Message {
  readonly role: "user" | "assistant"
  readonly content: string
}

/** Six turns: three user turns of two factual sentences each, three assistant replies that state nothing about the user. */
export const session = (i: number) => {
  const p = (k: number) => person(i, k)
  const messages: ReadonlyArray<Message> = [
    {
      role: "user",
      content: `${p(0)} is my colleague at the ${pick(CITIES, i)} office. ${p(1)} lent me ${2 + (i % 7)} books about ${pick(TOPICS, i * 3)} last month.`
    },
    { role: "assistant", content: "That sounds like a generous colleague. Which of the books are you reading first?" },
    {
      role: "user",
      content: `${p(2)} and I ran the ${pick(CITIES, i + 5)} half marathon in ${95 + (i % 40)} minutes. ${p(3)} teaches ${pick(SUBJECTS, i)} near ${
        pick(PLACES, i)
      }.`
    },
    { role: "assistant", content: "Congratulations on the race. Half marathons take real training." },
    {
      role: "user",
      content: `${p(4)} recommended a ${pick(FOODS, i * 5)} restaurant on ${pick(STREETS, i)} Street. ${p(5)} is coming to my birthday dinner on ${
        pick(MONTHS, i)
      } ${1 + (i % 28)}.`
    },
    { role: "assistant", content: "A new restaurant and a birthday dinner: a good month ahead." }
  ]
  const day = String(1 + (i % 28)).padStart(2, "0")
  return { session_id: `s${i}`, session_time: `2025-${String(1 + (i % 12)).padStart(2, "0")}-${day}T19:30:00`, messages }
}

/** A question about session i, in the words a user would ask it: queries that find the sessions' facts and turns. */
export const question = (i: number) => {
  const p = (k: number) => person(i, k)
  switch (i % 6) {
    case 0:
      return `Who is my colleague at the ${pick(CITIES, i)} office?`
    case 1:
      return `Who lent me books about ${pick(TOPICS, i * 3)}?`
    case 2:
      return `Which half marathon did I run with ${p(2)}?`
    case 3:
      return `What does ${p(3)} teach?`
    case 4:
      return `Which ${pick(FOODS, i * 5)} restaurant was recommended to me?`
    default:
      return `When is my birthday dinner with ${p(5)}?`
  }
}
