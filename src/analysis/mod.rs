//! Analyses of a module's bytecode that both the compiler (`tissc lint`) and
//! the VM (`tissvm inspect`) report.

pub mod taint;
