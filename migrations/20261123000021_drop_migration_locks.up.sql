-- The row lock of bun's migrator is gone: a process killed while holding it
-- left the row, and every later start refused to migrate. store.Migrate now
-- locks with what dies with its holder (a PostgreSQL advisory lock, SQLite's
-- write lock).
DROP TABLE IF EXISTS hearth_migration_locks;
