//! The provider settings (book: reference/models.md), defined once: each setting's flag,
//! environment variable, `tiss.toml` key, default and parser come from the
//! [`Key`] table, and [`resolve`] layers them — flags beat the environment,
//! which beats the `[provider]` table of `tiss.toml` in the current
//! directory, which beats the base (a fresh run's defaults, or the settings a
//! resumed snapshot remembers). For the `replay` provider, a setting that
//! only has its default is the one the cassette's requests were sent with
//! (book: reference/models.md: replay needs no provider flags).
//!
//! What a snapshot remembers holds no secret: `api_key_env` is the *name*
//! of the variable that holds the key. The key itself is taken out of the
//! process's environment once, before anything runs
//! ([`ProviderSettings::take_key`]: the variable scrubbed and removed, the
//! process made not dumpable), kept in memory only, never serialized, and
//! sent only in the `Authorization` header.

use std::path::{Path, PathBuf};
use tiss_support::io_message::io_message;
use tiss_support::secret::{self, Secret};

use clap::Args;

use crate::cassette::Cassette;
use serde::{Deserialize, Serialize};

pub mod as_it_stood;

/// The providers this build offers, with what each talks to.
pub const PROVIDERS: [(&str, &str); 5] = [
    ("mock", "nothing: deterministic and offline (the default); --mock-answers FILE scripts its answers"),
    (
        "replay",
        "a cassette (--cassette FILE, which --record wrote): answers exactly what was recorded, offline",
    ),
    ("openai", "OpenAI-compatible POST {base}/chat/completions, SSE streaming with usage"),
    ("ollama", "Ollama's native POST {base}/api/chat, NDJSON streaming with usage"),
    (
        "completion",
        "raw POST {base}/completion of llama.cpp ({base}/completions if it ends in /v1), --template",
    ),
];

/// `--base-url` when the `openai` provider is given none.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// `--base-url` when the `ollama` provider is given none: Ollama's own default.
pub const OLLAMA_BASE_URL: &str = "http://127.0.0.1:11434";
/// `--base-url` when the `completion` provider is given none: llama.cpp's
/// `llama-server` default.
pub const COMPLETION_BASE_URL: &str = "http://127.0.0.1:8080";

/// How many of the last tokens `--repeat-penalty` looks back over, sent
/// with it as `repeat_last_n`: llama.cpp's and Ollama's own default, pinned
/// so that a server with another default penalises the same tokens.
pub const REPEAT_LAST_N: u64 = 64;

/// The largest `tiss.toml` read (a project file is a few lines).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The effective settings of the model provider. Plain data: what a snapshot
/// remembers of them (the key's variable by name, never its value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderSettings {
    pub provider: String,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The name of the environment variable that holds the API key.
    pub api_key_env: String,
    pub max_tokens: u64,
    pub temperature: f64,
    pub seed: Option<u64>,
    /// `--repeat-penalty`, sent with [`REPEAT_LAST_N`] to llama.cpp's
    /// `/completion` and to Ollama; `None`: nothing sent, the server's own.
    pub repeat_penalty: Option<f64>,
    pub template: Option<String>,
    /// `mock`'s scripted answers: the file's absolute path.
    pub mock_answers: Option<String>,
    /// `--record`: the cassette a live provider's answers are recorded into
    /// (absolute), so that a resumed run goes on recording into it.
    pub record: Option<String>,
    /// `replay`'s cassette (absolute).
    pub cassette: Option<String>,
    pub connect_timeout_ms: u64,
    pub first_token_timeout_ms: u64,
    pub idle_timeout_ms: u64,
    pub request_timeout_ms: u64,
    pub max_retries: u32,
    pub max_retry_wait_ms: u64,
    /// The key, once [`ProviderSettings::take_key`] took it: never
    /// serialized, never shown.
    #[serde(skip)]
    pub key: Option<Taken>,
}

/// What [`ProviderSettings::take_key`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken(pub Option<Secret>);

impl Default for ProviderSettings {
    fn default() -> ProviderSettings {
        ProviderSettings {
            provider: "mock".into(),
            model: None,
            base_url: None,
            api_key_env: "OPENAI_API_KEY".into(),
            max_tokens: tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS,
            temperature: 0.0,
            seed: None,
            repeat_penalty: None,
            template: None,
            mock_answers: None,
            record: None,
            cassette: None,
            connect_timeout_ms: 10_000,
            first_token_timeout_ms: 60_000,
            idle_timeout_ms: 30_000,
            request_timeout_ms: 600_000,
            max_retries: 2,
            max_retry_wait_ms: 60_000,
            key: None,
        }
    }
}

/// One setting: its flag is `--` + [`Key::flag`], its variable [`Key::env`],
/// its `tiss.toml` key [`Key::toml`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Provider,
    Model,
    BaseUrl,
    ApiKeyEnv,
    MaxTokens,
    Temperature,
    Seed,
    RepeatPenalty,
    Template,
    MockAnswers,
    Record,
    Cassette,
    ConnectTimeout,
    FirstTokenTimeout,
    IdleTimeout,
    RequestTimeout,
    MaxRetries,
    MaxRetryWait,
}

impl Key {
    pub const ALL: [Key; 18] = [
        Key::Provider,
        Key::Model,
        Key::BaseUrl,
        Key::ApiKeyEnv,
        Key::MaxTokens,
        Key::Temperature,
        Key::Seed,
        Key::RepeatPenalty,
        Key::Template,
        Key::MockAnswers,
        Key::Record,
        Key::Cassette,
        Key::ConnectTimeout,
        Key::FirstTokenTimeout,
        Key::IdleTimeout,
        Key::RequestTimeout,
        Key::MaxRetries,
        Key::MaxRetryWait,
    ];

    /// The `tiss.toml` key; the flag and the variable derive from it.
    pub fn toml(self) -> &'static str {
        match self {
            Key::Provider => "provider",
            Key::Model => "model",
            Key::BaseUrl => "base_url",
            Key::ApiKeyEnv => "api_key_env",
            Key::MaxTokens => "max_tokens",
            Key::Temperature => "temperature",
            Key::Seed => "seed",
            Key::RepeatPenalty => "repeat_penalty",
            Key::Template => "template",
            Key::MockAnswers => "mock_answers",
            Key::Record => "record",
            Key::Cassette => "cassette",
            Key::ConnectTimeout => "connect_timeout",
            Key::FirstTokenTimeout => "first_token_timeout",
            Key::IdleTimeout => "idle_timeout",
            Key::RequestTimeout => "request_timeout",
            Key::MaxRetries => "max_retries",
            Key::MaxRetryWait => "max_retry_wait",
        }
    }

    /// The flag's name without its dashes: `max-tokens`.
    pub fn flag(self) -> String {
        self.toml().replace('_', "-")
    }

    /// The environment variable: `TISS_MAX_TOKENS`.
    pub fn env(self) -> String {
        format!("TISS_{}", self.toml().to_ascii_uppercase())
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    /// What the resumed snapshot remembers.
    Snapshot,
    File(PathBuf),
    Env,
    Flag,
    /// The `replay` provider's cassette: what its requests were sent with.
    Cassette,
}

impl Origin {
    /// How `tissvm providers` names it for `key`.
    pub fn describe(&self, key: Key) -> String {
        match self {
            Origin::Default => "default".into(),
            Origin::Snapshot => "the snapshot".into(),
            Origin::File(path) => format!("{} [provider]", path.display()),
            Origin::Env => key.env(),
            Origin::Flag => format!("--{}", key.flag()),
            Origin::Cassette => "the cassette".into(),
        }
    }
}

/// The settings a run goes by, and where each came from (in [`Key::ALL`] order).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub settings: ProviderSettings,
    pub origins: Vec<Origin>,
}

/// The `--help` heading of the provider flags.
const HEADING: &str = "Model provider (each flag also has a TISS_<FLAG> variable and a key in the \
                       [provider] table of ./tiss.toml: flags beat environment beats file beats defaults)";

/// The provider flags of `tissvm`'s `run`, `resume`, `debug` and
/// `providers`, and of `tissc generate`. Each is
/// taken as text and parsed with the same rules as its variable and its
/// `tiss.toml` key.
#[derive(Args, Debug, Default, Clone)]
pub struct ProviderFlags {
    /// `mock` (deterministic, offline; the default), `openai` (OpenAI-compatible chat completions:
    /// llama.cpp server, vLLM, Ollama's /v1, hosted APIs), `ollama` (Ollama's native /api/chat),
    /// `completion` (raw /completion of llama.cpp, or /completions) or `replay` (answers from a
    /// cassette, offline: --cassette). `tissvm providers` lists them.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "NAME")]
    pub provider: Option<String>,
    /// The model to ask, as the server names it.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL, e.g. `http://127.0.0.1:8080/v1` (defaults: openai https://api.openai.com/v1,
    /// ollama http://127.0.0.1:11434, completion http://127.0.0.1:8080; for completion a base ending in /v1
    /// means the OpenAI-style {base}/completions, any other llama.cpp's {base}/completion).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "URL")]
    pub base_url: Option<String>,
    /// The NAME of the environment variable holding the API key, read at each request (default
    /// OPENAI_API_KEY; unset: no key is sent). Never the key itself.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// The most tokens an answer may have (default 1024).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "N")]
    pub max_tokens: Option<String>,
    /// Sampling temperature (default 0).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "T")]
    pub temperature: Option<String>,
    /// Sampling seed, for servers that take one.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "N")]
    pub seed: Option<String>,
    /// Repetition penalty, above 0: above 1 makes the tokens of the last 64 less likely, which ends
    /// the loops a small model falls into at temperature 0 (1.15 for SmolLM2-135M); 1 is off. Sent as
    /// repeat_penalty (with repeat_last_n 64) by completion to llama.cpp's /completion and by ollama;
    /// refused by openai and by completion's /completions, whose APIs have no such field. Default:
    /// none sent (the server's own).
    // A negative one reaches the parser, which says why it is refused.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "P", allow_negative_numbers = true)]
    pub repeat_penalty: Option<String>,
    /// How the `completion` provider renders the prompt: `chatml`, `llama2` or `alpaca` (required
    /// there: no default, as the wrong one gives poor answers silently).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "NAME")]
    pub template: Option<String>,
    /// The `mock` provider's answers: a JSON array of strings (the k-th answers the run's k-th
    /// PROMPT_AGENT) or of {"match": REGEX, "answer": TEXT} (the first whose regex matches the query).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "FILE")]
    pub mock_answers: Option<String>,
    /// Record every answer of the provider into FILE, a cassette that `--provider replay --cassette
    /// FILE` answers from offline (never headers, errors or the key). Written when the run ends, however
    /// it ends, and with every snapshot; `tissvm resume` goes on recording into it. Replay takes the
    /// recording's settings (model, temperature, ...) where it is given none: a request that differs
    /// from the recorded one, by a setting given, is a miss.
    /// With many plans (`tissvm run PLAN|DIR...`), a directory: a cassette per plan.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "FILE")]
    pub record: Option<String>,
    /// The `replay` provider's cassette, a file `--record` wrote: each request is answered with what was
    /// recorded for it (the same request, its n-th time in the run); a miss is a provider_error naming
    /// the nearest recorded request and what differs. The settings not given (model, template,
    /// sampling, token limit, the endpoint's path) are the recording's.
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "FILE")]
    pub cassette: Option<String>,
    /// Time to connect (default 10s).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "DURATION")]
    pub connect_timeout: Option<String>,
    /// Time from sending a request to the first byte of the answer (default 60s).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "DURATION")]
    pub first_token_timeout: Option<String>,
    /// Longest gap between streamed chunks of an answer (default 30s).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "DURATION")]
    pub idle_timeout: Option<String>,
    /// Longest time for one whole request (default 10m).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "DURATION")]
    pub request_timeout: Option<String>,
    /// Retries after a connection error, 408, 429 or 5xx (default 2; 0: one request only).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "N")]
    pub max_retries: Option<String>,
    /// The longest `Retry-After` waited for; a longer one fails at once (default 60s).
    #[arg(long, hide_short_help = true, help_heading = HEADING, value_name = "DURATION")]
    pub max_retry_wait: Option<String>,
}

impl ProviderFlags {
    /// The flag given for `key`, if any.
    pub fn get(&self, key: Key) -> Option<&str> {
        let value = match key {
            Key::Provider => &self.provider,
            Key::Model => &self.model,
            Key::BaseUrl => &self.base_url,
            Key::ApiKeyEnv => &self.api_key_env,
            Key::MaxTokens => &self.max_tokens,
            Key::Temperature => &self.temperature,
            Key::Seed => &self.seed,
            Key::RepeatPenalty => &self.repeat_penalty,
            Key::Template => &self.template,
            Key::MockAnswers => &self.mock_answers,
            Key::Record => &self.record,
            Key::Cassette => &self.cassette,
            Key::ConnectTimeout => &self.connect_timeout,
            Key::FirstTokenTimeout => &self.first_token_timeout,
            Key::IdleTimeout => &self.idle_timeout,
            Key::RequestTimeout => &self.request_timeout,
            Key::MaxRetries => &self.max_retries,
            Key::MaxRetryWait => &self.max_retry_wait,
        };
        value.as_deref()
    }
}

/// The path and text of `tiss.toml` in `dir`, if there is one. Each of its
/// tables is read by its own owner (`[provider]` here, `[policy]` by the
/// VM's command policy).
pub fn read_project_file(dir: &Path) -> Result<Option<(PathBuf, String)>, String> {
    let path = dir.join("tiss.toml");
    Ok(read_settings_file(&path)?.map(|text| (path, text)))
}

/// The text of a settings file (`tiss.toml`, a `--policy` file), `None` if
/// there is none: at most [`MAX_FILE_BYTES`], and UTF-8. One a run going
/// on may have changed is read as it stood before that run
/// ([`as_it_stood::as_it_stood`]).
pub fn read_settings_file(path: &Path) -> Result<Option<String>, String> {
    if let Some(stood) = as_it_stood::as_it_stood(path) {
        let Some(bytes) = stood else { return Ok(None) };
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!("`{}` is larger than {MAX_FILE_BYTES} bytes", path.display()));
        }
        return String::from_utf8(bytes).map(Some).map_err(|_| format!("`{}` is not UTF-8", path.display()));
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read `{}`: {}", path.display(), io_message(&e))),
    };
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)
        .map_err(|e| format!("cannot read `{}`: {}", path.display(), io_message(&e)))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("`{}` is larger than {MAX_FILE_BYTES} bytes", path.display()));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| format!("`{}` is not UTF-8", path.display()))
}

/// The `[provider]` table of a `tiss.toml`, its values as text.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectFile {
    pub path: PathBuf,
    values: Vec<(Key, String)>,
}

impl ProjectFile {
    /// `tiss.toml` in `dir`, if there is one. Other tables are not ours and
    /// are left alone; in `[provider]`, every key must be a setting.
    pub fn read(dir: &Path) -> Result<Option<ProjectFile>, String> {
        match read_project_file(dir)? {
            Some((path, text)) => ProjectFile::parse(&path, &text).map(Some),
            None => Ok(None),
        }
    }

    pub fn parse(path: &Path, text: &str) -> Result<ProjectFile, String> {
        let name = path.display();
        let table: toml::Table = toml::from_str(text).map_err(|e| format!("`{name}`: {}", e.message()))?;
        let mut values = Vec::new();
        let Some(section) = table.get("provider") else {
            return Ok(ProjectFile { path: path.into(), values });
        };
        let toml::Value::Table(section) = section else {
            return Err(format!("`{name}`: `provider` must be a table (`[provider]`)"));
        };
        for (name_in_file, value) in section {
            if name_in_file == "api_key" {
                return Err(format!(
                    "`{name}` [provider]: a key does not belong in a file; set `api_key_env` to the name of the \
                     environment variable that holds it"
                ));
            }
            let key = Key::ALL.into_iter().find(|k| k.toml() == name_in_file).ok_or_else(|| {
                let known: Vec<&str> = Key::ALL.iter().map(|k| k.toml()).collect();
                format!(
                    "`{name}` [provider]: unknown setting `{name_in_file}`; the settings are {}",
                    known.join(", ")
                )
            })?;
            let text = match value {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                _ => {
                    return Err(format!(
                        "`{name}` [provider]: `{name_in_file}` must be a string or a number, not a {}",
                        value.type_str()
                    ));
                }
            };
            values.push((key, text));
        }
        Ok(ProjectFile { path: path.into(), values })
    }

    fn get(&self, key: Key) -> Option<&str> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

/// Layers the settings: `flags`, then the environment (`env` looks a
/// variable up; an empty value is unset), then `file`, then `base` (with
/// `base_origin`: [`Origin::Default`] or [`Origin::Snapshot`]).
pub fn resolve(
    flags: &ProviderFlags,
    env: &dyn Fn(&str) -> Option<String>,
    file: Option<&ProjectFile>,
    base: ProviderSettings,
    base_origin: Origin,
) -> Result<Resolved, String> {
    // A snapshot's settings are checked like any other source's.
    for key in Key::ALL {
        if let Some(text) = base.text(key) {
            let mut check = ProviderSettings::default();
            check
                .set(key, &text)
                .map_err(|e| format!("{} (from {}): {e}", key.toml(), base_origin.describe(key)))?;
        }
    }
    let mut settings = base;
    let mut origins = Vec::with_capacity(Key::ALL.len());
    for key in Key::ALL {
        let given = if let Some(v) = flags.get(key) {
            Some((v.to_string(), Origin::Flag, format!("--{}", key.flag())))
        } else if let Some(v) = env(&key.env()).filter(|v| !v.is_empty()) {
            Some((v, Origin::Env, key.env()))
        } else {
            file.and_then(|f| {
                let where_ = format!("`{}` [provider] {}", f.path.display(), key.toml());
                f.get(key).map(|v| (v.to_string(), Origin::File(f.path.clone()), where_))
            })
        };
        match given {
            Some((text, origin, source)) => {
                settings.set(key, &text).map_err(|e| format!("{source}: {e}"))?;
                origins.push(origin);
            }
            None => origins.push(base_origin.clone()),
        }
    }
    // A flag only one provider reads, given for another, would be ignored
    // without a word; a variable or `tiss.toml` may hold it as a default.
    let at = |key: Key| Key::ALL.iter().position(|k| *k == key).unwrap_or(0);
    let origin = |key: Key| &origins[at(key)];
    for (key, reader) in [(Key::MockAnswers, "mock"), (Key::Cassette, "replay")] {
        if *origin(key) == Origin::Flag && settings.provider != reader {
            return Err(format!(
                "--{flag} is read only by the `{reader}` provider, and the provider is `{}` (from {}): give \
                 --provider {reader}, or drop --{flag}",
                settings.provider,
                origin(Key::Provider).describe(Key::Provider),
                flag = key.flag(),
            ));
        }
    }
    // Replay: what the run does not give is what the recording sent.
    if let Some(path) = settings.cassette.clone().filter(|_| settings.provider == "replay")
        && origins.contains(&Origin::Default)
    {
        let cassette = Cassette::read(Path::new(&path), "--cassette")?;
        for (key, text) in crate::replay::recorded_settings(&cassette) {
            if origins[at(key)] == Origin::Default {
                settings.set(key, &text).map_err(|e| {
                    format!("--cassette `{path}`: the {} its requests were sent with: {e}", key.toml())
                })?;
                origins[at(key)] = Origin::Cassette;
            }
        }
    }
    Ok(Resolved { settings, origins })
}

/// The settings from `flags`, this process's environment and `tiss.toml` in
/// the current directory, over `base` (what `tissvm` and `tissc generate`
/// go by).
pub fn from_process(
    flags: &ProviderFlags,
    base: ProviderSettings,
    base_origin: Origin,
) -> Result<Resolved, String> {
    let file = ProjectFile::read(Path::new("."))?;
    resolve(flags, &|name| std::env::var(name).ok(), file.as_ref(), base, base_origin)
}

impl ProviderSettings {
    /// Sets `key` from its text, as a flag, a variable or `tiss.toml` gives it.
    pub fn set(&mut self, key: Key, text: &str) -> Result<(), String> {
        let text = text.trim();
        match key {
            Key::Provider => {
                if !PROVIDERS.iter().any(|(name, _)| *name == text) {
                    let names: Vec<&str> = PROVIDERS.iter().map(|(n, _)| *n).collect();
                    return Err(format!("unknown provider `{text}`: this build offers {}", names.join(", ")));
                }
                self.provider = text.into();
            }
            Key::Model => self.model = Some(non_empty(text)?),
            Key::BaseUrl => self.base_url = Some(base_url(text)?),
            Key::ApiKeyEnv => {
                let valid = !text.is_empty()
                    && !text.starts_with(|c: char| c.is_ascii_digit())
                    && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    // Not echoed: a key given here by mistake must not be printed.
                    return Err("takes the NAME of the environment variable that holds the key (letters, \
                                digits and `_`), and what was given is not one (not shown, in case it is a key)"
                        .into());
                }
                self.api_key_env = text.into();
            }
            Key::MaxTokens => {
                self.max_tokens = count(text)?;
                if self.max_tokens == 0 {
                    return Err("must be at least 1".into());
                }
            }
            Key::Temperature => {
                self.temperature = text
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| format!("`{text}` is not a temperature (a number, 0 or more)"))?;
            }
            Key::Seed => self.seed = Some(count(text)?),
            Key::RepeatPenalty => {
                let penalty = text.parse::<f64>().ok().filter(|p| p.is_finite() && *p > 0.0);
                self.repeat_penalty = Some(penalty.ok_or_else(|| {
                    format!("`{text}` is not a repeat penalty: give a number above 0 (1 is off; 1.1 to 1.2 is usual)")
                })?);
            }
            Key::Template => {
                if crate::template::Template::from_name(text).is_none() {
                    let names = crate::template::NAMES.join(", ");
                    return Err(format!("`{text}` is not a template: use one of {names}"));
                }
                self.template = Some(text.into());
            }
            Key::MockAnswers => self.mock_answers = Some(absolute_path(text)?),
            Key::Record => self.record = Some(absolute_path(text)?),
            Key::Cassette => self.cassette = Some(absolute_path(text)?),
            Key::ConnectTimeout => self.connect_timeout_ms = positive_duration(text)?,
            Key::FirstTokenTimeout => self.first_token_timeout_ms = positive_duration(text)?,
            Key::IdleTimeout => self.idle_timeout_ms = positive_duration(text)?,
            Key::RequestTimeout => self.request_timeout_ms = positive_duration(text)?,
            Key::MaxRetries => {
                self.max_retries = count(text)?.try_into().map_err(|_| format!("`{text}` is too many"))?;
            }
            Key::MaxRetryWait => self.max_retry_wait_ms = duration_ms(text)?,
        }
        Ok(())
    }

    /// `key`'s value as text (as a flag would give it); `None` when unset.
    pub fn text(&self, key: Key) -> Option<String> {
        let ms = |v: u64| Some(format_ms(v));
        match key {
            Key::Provider => Some(self.provider.clone()),
            Key::Model => self.model.clone(),
            Key::BaseUrl => self.base_url.clone(),
            Key::ApiKeyEnv => Some(self.api_key_env.clone()),
            Key::MaxTokens => Some(self.max_tokens.to_string()),
            Key::Temperature => Some(self.temperature.to_string()),
            Key::Seed => self.seed.map(|s| s.to_string()),
            Key::RepeatPenalty => self.repeat_penalty.map(|p| p.to_string()),
            Key::Template => self.template.clone(),
            Key::MockAnswers => self.mock_answers.clone(),
            Key::Record => self.record.clone(),
            Key::Cassette => self.cassette.clone(),
            Key::ConnectTimeout => ms(self.connect_timeout_ms),
            Key::FirstTokenTimeout => ms(self.first_token_timeout_ms),
            Key::IdleTimeout => ms(self.idle_timeout_ms),
            Key::RequestTimeout => ms(self.request_timeout_ms),
            Key::MaxRetries => Some(self.max_retries.to_string()),
            Key::MaxRetryWait => ms(self.max_retry_wait_ms),
        }
    }

    /// Takes the API key out of the process's environment (its variable
    /// scrubbed from the environment block and removed, so that no RUN
    /// inherits it or reads it from `/proc`; the process made not
    /// dumpable, key or not): from then on [`ProviderSettings::api_key`] gives
    /// it from memory.
    ///
    /// # Safety
    /// No other thread may read or change the environment meanwhile: call it
    /// while the process has one thread.
    pub unsafe fn take_key(&mut self) {
        // SAFETY: the caller's guarantee.
        self.key = Some(Taken(unsafe { secret::take_env(&self.api_key_env) }));
    }

    /// The key [`ProviderSettings::take_key`] took, if any.
    pub fn taken_key(&self) -> Option<&Secret> {
        self.key.as_ref().and_then(|Taken(key)| key.as_ref())
    }

    /// The API key; `None` when it is unset or empty (a local server needs
    /// none). Taken before ([`ProviderSettings::take_key`]), else read from
    /// its variable now.
    pub fn api_key(&self) -> Option<String> {
        match &self.key {
            Some(Taken(key)) => key.as_ref().map(|k| k.expose().to_string()),
            None => std::env::var(&self.api_key_env).ok().filter(|k| !k.is_empty()),
        }
    }
}

fn non_empty(text: &str) -> Result<String, String> {
    if text.is_empty() { Err("must not be empty".into()) } else { Ok(text.into()) }
}

fn base_url(text: &str) -> Result<String, String> {
    let rest = text.strip_prefix("http://").or_else(|| text.strip_prefix("https://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.contains(char::is_whitespace) && !rest.contains('@') => {
            Ok(text.trim_end_matches('/').into())
        }
        Some(rest) if rest.contains('@') => {
            Err("must not carry credentials; name the key's variable with --api-key-env".into())
        }
        _ => Err(format!("`{text}` is not an http:// or https:// URL")),
    }
}

/// `text` as an absolute path, so that a resumed run finds the same file
/// from any directory.
fn absolute_path(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("must not be empty: give the path of a file".into());
    }
    let path = std::path::absolute(text).map_err(|e| format!("`{text}`: {e}"))?;
    path.to_str().map(str::to_string).ok_or_else(|| format!("`{text}`: the path is not UTF-8"))
}

fn count(text: &str) -> Result<u64, String> {
    text.replace('_', "").parse().map_err(|_| format!("`{text}` is not a whole number"))
}

/// `500ms`, `10s`, `2m`, `1h`, in milliseconds.
pub fn duration_ms(text: &str) -> Result<u64, String> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let number: u64 =
        digits.parse().map_err(|_| format!("`{text}` is not a duration such as 10s or 500ms"))?;
    let factor = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err(format!("`{text}` needs a unit: ms, s, m or h (e.g. {text}s)")),
        _ => return Err(format!("`{unit}` is not a unit of time: use ms, s, m or h")),
    };
    number.checked_mul(factor).ok_or_else(|| format!("`{text}` is too long"))
}

fn positive_duration(text: &str) -> Result<u64, String> {
    match duration_ms(text)? {
        0 => Err("must be longer than 0".into()),
        ms => Ok(ms),
    }
}

/// Milliseconds in the largest unit that divides them: `10s`, `1500ms`.
pub use tisslang::duration::literal as format_ms;

#[cfg(test)]
mod tests;
