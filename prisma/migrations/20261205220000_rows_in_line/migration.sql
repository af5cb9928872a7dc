-- Rows of the decision path stay in their page up to a page's size (ADR 0092, 2026-12-05).
-- PostgreSQL's default is to start toasting a row above about 2 KB: it first tries pglz on the
-- largest values, and then moves them to the table's TOAST relation, which is a second heap
-- insert, a TOAST index insert and a new OID per value, and a TOAST index lookup on every read.
-- An intent row is about 2.2 KB (its signed message is 1.1 KB of hashes and a signature, which
-- pglz cannot shrink), so every intent paid all of that for nothing. The tables below hold text
-- that grows with a decision's payload or its signed message; their rows are written once and
-- read by the path, so they are kept whole until they near a page.
ALTER TABLE "intents" SET (toast_tuple_target = 8160);
ALTER TABLE "outbox" SET (toast_tuple_target = 8160);
ALTER TABLE "decision_inbox" SET (toast_tuple_target = 8160);
ALTER TABLE "journal" SET (toast_tuple_target = 8160);
