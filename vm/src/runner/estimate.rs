//! `tissvm estimate`: static cost bounds per step and in total, without
//! running anything (book: cli/tissvm.md).

use std::path::PathBuf;

use crate::analysis::estimate::{CostModel, estimate};
use crate::provider::settings::{self, Origin, ProviderFlags, ProviderSettings};
use tisslang::module::Module;

use crate::runner::invalid::{Invalid, Refused};
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::{PROGRAM, status};
use tiss_support::cli::write_stdout;
use tiss_support::io_message::io_message;

/// What `estimate` reads and how it prints.
pub struct EstimateOptions {
    pub plan: PathBuf,
    /// JSON (book: reference/formats.md shape, plus a `runs` array) rather than text.
    pub json: bool,
    /// A TOML file of execution times for RUNs without TIMEOUT.
    pub cost_model: Option<PathBuf>,
    /// Earlier runs' log files, whose recorded durations bound a RUN's.
    pub history: Vec<PathBuf>,
    /// `--max-tokens`: the answer allowance per prompt, as a run takes it.
    pub max_tokens: Option<String>,
}

/// Prints the plan's estimate; the exit status.
pub fn run(out: &mut Diagnostics, options: &EstimateOptions) -> u8 {
    match model(options).map_err(Refused::from) {
        Ok(model) => match load_plan(out, &options.plan) {
            Ok(plan) => print(plan.module, &model, options),
            Err(refused) => refused.report_analysis(options.json),
        },
        Err(refused) => refused.report_analysis(options.json),
    }
}

/// Reads the cost model and history first, so a bad file is reported before
/// anything else is printed.
fn model(options: &EstimateOptions) -> Result<CostModel, Invalid> {
    let mut model = match &options.cost_model {
        Some(path) => {
            let text = read(path, "--cost-model")?;
            CostModel::from_toml(&text).map_err(|e| {
                Invalid::told(path.display().to_string(), format!("--cost-model `{}`: {e}", path.display()))
            })?
        }
        None => CostModel::default(),
    };
    // The run's rule: the flag, else TISS_MAX_TOKENS, else ./tiss.toml.
    let flags = ProviderFlags { max_tokens: options.max_tokens.clone(), ..Default::default() };
    let resolved = settings::from_process(&flags, ProviderSettings::default(), Origin::Default)
        .map_err(|e| Invalid::told(options.plan.display().to_string(), e))?;
    model.set_completion_tokens(resolved.settings.max_tokens);
    for path in &options.history {
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
        Invalid::told(name.clone(), format!("{flag}: cannot read `{name}`: {}", io_message(&e)))
    })
}

fn print(module: Module, model: &CostModel, options: &EstimateOptions) -> u8 {
    let estimate = match estimate(&module, model) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("tissvm: {}: {e}", options.plan.display());
            return status::INVALID;
        }
    };
    let text = if options.json {
        let mut text = serde_json::to_string_pretty(&estimate.to_json(&module)).unwrap_or_default();
        text.push('\n');
        text
    } else {
        estimate.to_text(&module, crate::runner::color::stdout())
    };
    write_stdout(PROGRAM, &text, status::OK)
}
