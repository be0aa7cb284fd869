/**
 * The instructions of each structured task (src/llm/tasks.ts holds their inputs and reply
 * schemas). The input arrives as the user message, a JSON document; the reply is JSON only.
 */

export const EXTRACTION_PROMPT = `You turn one conversation session into memories about the user.
The input is JSON: the session's id, its local time (session_time), and its turns, each numbered.
Return every durable, useful piece of information as an atomic fact: one self-contained sentence
that names the user as "the user" and every other person or thing by name, so that it reads
correctly with no conversation around it. Do not invent anything; skip greetings, small talk,
questions and what the assistant merely suggested.
For each fact give:
- kind: "event" (something that happened), "state" (true for a while: where the user lives, works,
  what they own), "preference" (likes, dislikes, wishes), "profile" (lasting traits: name, age,
  job, family), or "fact" (anything else).
- confidence from 0 to 1: lower when the speaker hedges.
- occurred: when it happened or became true, resolved against session_time, at the precision the
  conversation supports: "YYYY", "YYYY-MM", "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM". "yesterday" in a
  session of 2023-05-08 is "2023-05-07". Use "" when the conversation does not say.
- source_turns: the numbers of the turns the fact comes from.
- entities: the people, places, organisations and things it involves, with their role
  ("subject", "object", "location", "participant" or "other"); the user is the entity "user".
- predicate: a short snake_case relation such as lives_in, works_at, likes, visited; "" if none fits.`

export const RECONCILE_PROMPT = `You keep a user's memory consistent. The input is JSON: facts just learned in one
session, each with the most similar facts already in memory (candidates, with their ids).
For each new fact decide, by its index:
- "add": it is new information; target_id "".
- "update": it replaces a candidate that is no longer current (a new address, a changed plan);
  target_id is that candidate's id.
- "contradict": it says a candidate was wrong; target_id is that candidate's id.
- "duplicate": a candidate already says the same; target_id is that candidate's id.
Only a candidate about the same subject and the same relation can be updated, contradicted or
duplicated. Give a short reason for each decision.`

export const PLAN_PROMPT = `You plan how to answer a question from a user's memory. The input is JSON: the question,
today's date, the step you are at, the searches made so far with how much each found, and the
evidence gathered (each line with its id, text and date).
Answer with action "search" and a new search query (different from those already made) when the
evidence cannot yet answer the question, or with action "answer" and query "" when it can, or when
more searching will not help. Give a short reason.`

export const READ_PROMPT = `You answer a question using only the evidence given. The input is JSON: the question, today's
date (for relative time), and the evidence lines, each with its id, text and date.
Answer concisely. In citations list the ids of the lines the answer rests on. When the evidence
does not answer the question, set insufficient to true, answer that you do not know, and say in
missing_information what is missing. Never use knowledge from outside the evidence.`

export const PROFILE_PROMPT = `You write the profile of one entity from a user's memory. The input is JSON: the entity's
name and its current facts, each with its id, text and date. Write a short factual summary (at most
five sentences) of what the facts say about the entity, newest information first where facts
differ, and list in citations the ids of the facts you used. Never add anything the facts do not say.`
