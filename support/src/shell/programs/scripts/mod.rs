//! Scripts in a tool's own language, read for the commands they run:
//! sed's (`e CMD`), awk's (`system(CMD)`, `print | CMD`), and the SQL
//! shells' (sqlite3's `.shell CMD`, psql's `\! CMD`).

pub(super) mod awk_program;
pub(super) mod sed_script;
pub(super) mod sql_clients;
