//! `tissvm estimate`: static cost bounds per step and in total, without
//! running anything (SPEC §9).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tiss_vm::analysis::estimate::{CostModel, estimate};
use tisslang::module::Module;

use super::invalid::Invalid;
use super::status;

#[derive(Args)]
pub struct EstimateArgs {
    /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// `text` (a table per step, the total, and every RUN with the source of
    /// its time estimate) or `json` (SPEC §9 shape, plus a `runs` array).
    #[arg(long, value_enum, default_value_t = EstimateFormat::Text, value_name = "FORMAT")]
    output_format: EstimateFormat,

    /// A TOML file of execution times for RUNs without TIMEOUT: `[[command]]`
    /// entries with `pattern` (a glob) or `regex`, `min` and `max` (e.g. "30s"),
    /// and an optional `[default]` with `min` and `max`.
    #[arg(long, value_name = "FILE")]
    cost_model: Option<PathBuf>,

    /// An earlier run's `--log-file`: a RUN without TIMEOUT whose command was
    /// logged takes [fastest, slowest] of its recorded durations (repeatable).
    #[arg(long = "history", value_name = "LOG")]
    history: Vec<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EstimateFormat {
    Text,
    Json,
}

impl EstimateArgs {
    /// Whether the output is JSON (then so is the report of a refused input).
    pub fn json(&self) -> bool {
        self.output_format == EstimateFormat::Json
    }
}

/// Reads the cost model and history first, so a bad file is reported before
/// anything else is printed.
pub fn model(args: &EstimateArgs) -> Result<CostModel, Invalid> {
    let mut model = match &args.cost_model {
        Some(path) => {
            let text = read(path, "--cost-model")?;
            CostModel::from_toml(&text).map_err(|e| {
                Invalid::told(path.display().to_string(), format!("--cost-model `{}`: {e}", path.display()))
            })?
        }
        None => CostModel::default(),
    };
    for path in &args.history {
        let text = read(path, "--history")?;
        model.add_history(&text).map_err(|e| {
            Invalid::told(path.display().to_string(), format!("--history `{}`: {e}", path.display()))
        })?;
    }
    Ok(model)
}

fn read(path: &PathBuf, flag: &str) -> Result<String, Invalid> {
    std::fs::read_to_string(path).map_err(|e| {
        let name = path.display().to_string();
        Invalid::told(name.clone(), format!("{flag}: cannot read `{name}`: {}", super::io_message(&e)))
    })
}

pub fn run(module: Module, model: &CostModel, args: &EstimateArgs) -> u8 {
    let estimate = match estimate(&module, model) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", args.plan.display());
            return status::INVALID;
        }
    };
    let text = match args.output_format {
        EstimateFormat::Text => estimate.to_text(&module, tiss_vm::runner::color::stdout()),
        EstimateFormat::Json => {
            let mut text = serde_json::to_string_pretty(&estimate.to_json(&module)).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    super::write_stdout(super::PROGRAM, &text, status::OK)
}
