-- The demo tables the project's own migrations created before tools were packages (adopted by
-- 20261201000000_demo_tables with IF NOT EXISTS, so the migrate step did not see this package
-- create them): recorded as this package's, so its database role is granted them (ADR 0034).
INSERT INTO "_arvis_tool_tables" (package, table_name)
VALUES ('@arvis/tool-demo', 'notes'), ('@arvis/tool-demo', 'flaky_attempts'), ('@arvis/tool-demo', 'flaky_effects'),
       ('@arvis/tool-demo', 'mail_sink'), ('@arvis/tool-demo', 'ledger_transfers')
ON CONFLICT (table_name) DO NOTHING;
