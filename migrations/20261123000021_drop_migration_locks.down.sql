-- Nothing to restore: a version that locks with the table creates it again
-- at its start (bun's Migrator.Init).
SELECT 1;
