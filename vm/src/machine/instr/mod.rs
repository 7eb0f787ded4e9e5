//! The instructions `Op` leaves as bytecode, one function each, grouped by
//! what they touch: values and records (`compute`), typed answers
//! (`answer`), calls and steps
//! (`control`), the workspace and commands (`effects`), the language model
//! (`prompt`), and humans (`interaction`: PAUSE, REQUEST_REVIEW, CHOOSE,
//! and a RUN the command policy holds for approval).

mod answer;
mod compute;
mod control;
mod effects;
mod interaction;
mod prompt;
