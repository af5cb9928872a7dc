/**
 * The startup options of every service session (ADR 0082). Every statement a service runs finds
 * its rows by a key or an index's order; a sequential scan is never the plan it wants. But a
 * named statement's generic plan is made once per session, from the table's size at that moment
 * (its fifth execution), and kept until the table's statistics change: a plan made while a table
 * was new or empty is a sequential scan, and it went on reading the whole table at every execution
 * as the table grew (seen: 1,997 scans of `effects` reading 17.1 million rows during one burst of
 * 20,000 decisions; the outbox, a queue, is empty whenever its plan is likely to be made). With
 * sequential scans off the planner takes an index wherever one can serve the statement, at any
 * size; a table no index serves is still scanned (the setting penalises, it does not forbid).
 * Sent as a startup parameter, so it costs no statement; a `?options=` in DATABASE_URL replaces it.
 *
 * JIT off: with sequential scans off, a plan that still scans a table (a one-row table such as
 * `journal_head`, a table no index serves) costs above 10^10, past every `jit_*_above_cost`, so
 * PostgreSQL compiled, inlined and optimised it with LLVM at each execution: seen, the
 * scrape-time read of the checkpoint lag took 2.8 s of CPU for one row (13 ms without JIT), and
 * scrapes timed out. The services' statements are small; JIT never pays for them.
 */
export const SERVICE_SESSION_OPTIONS = '-c enable_seqscan=off -c jit=off';
