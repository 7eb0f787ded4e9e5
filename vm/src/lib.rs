//! `tiss-vm`: the TissLang virtual machine (to come; see ARCHITECTURE.md).
