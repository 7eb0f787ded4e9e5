use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn file(text: &str) -> Result<ProjectFile, String> {
    ProjectFile::parse(Path::new("tiss.toml"), text)
}

#[test]
fn flags_beat_environment_beats_file_beats_defaults() {
    let flags = ProviderFlags { model: Some("from-flag".into()), ..Default::default() };
    let env = |name: &str| match name {
        "TISS_MODEL" | "TISS_MAX_TOKENS" => Some("77".to_string()),
        "TISS_SEED" => Some(String::new()),
        _ => None,
    };
    let file = file("[provider]\nmodel = \"f\"\nmax_tokens = 5\nseed = 9\nidle_timeout = \"2s\"\n").unwrap();
    let r = resolve(&flags, &env, Some(&file), ProviderSettings::default(), Origin::Default).unwrap();
    assert_eq!(r.settings.model.as_deref(), Some("from-flag"));
    assert_eq!(r.settings.max_tokens, 77);
    // An empty variable is unset: the file's value stands.
    assert_eq!(r.settings.seed, Some(9));
    assert_eq!(r.settings.idle_timeout_ms, 2000);
    assert_eq!(r.settings.connect_timeout_ms, 10_000);
    let origin = |k: Key| r.origins[Key::ALL.iter().position(|x| *x == k).unwrap()].describe(k);
    assert_eq!(origin(Key::Model), "--model");
    assert_eq!(origin(Key::MaxTokens), "TISS_MAX_TOKENS");
    assert_eq!(origin(Key::Seed), "tiss.toml [provider]");
    assert_eq!(origin(Key::ConnectTimeout), "default");
}

#[test]
fn a_flag_for_another_provider_is_refused_not_ignored() {
    let env = |name: &str| (name == "TISS_PROVIDER").then(|| "ollama".to_string());
    let flags = ProviderFlags { cassette: Some("c.json".into()), ..Default::default() };
    let e = resolve(&flags, &env, None, ProviderSettings::default(), Origin::Default).unwrap_err();
    assert_eq!(
        e,
        "--cassette is read only by the `replay` provider, and the provider is `ollama` (from \
         TISS_PROVIDER): give --provider replay, or drop --cassette"
    );
    let flags = ProviderFlags {
        provider: Some("openai".into()),
        mock_answers: Some("a.json".into()),
        ..Default::default()
    };
    let e = resolve(&flags, &no_env, None, ProviderSettings::default(), Origin::Default).unwrap_err();
    assert!(
        e.starts_with("--mock-answers is read only by the `mock` provider")
            && e.contains("(from --provider)"),
        "{e}"
    );
    // For its own provider it is taken; from a variable or `tiss.toml`
    // it is a default that another provider leaves alone.
    let flags = ProviderFlags { mock_answers: Some("a.json".into()), ..Default::default() };
    assert!(resolve(&flags, &no_env, None, ProviderSettings::default(), Origin::Default).is_ok());
    let answers_env = |name: &str| match name {
        "TISS_PROVIDER" => Some("openai".to_string()),
        "TISS_MOCK_ANSWERS" => Some("a.json".to_string()),
        _ => None,
    };
    assert!(
        resolve(&ProviderFlags::default(), &answers_env, None, ProviderSettings::default(), Origin::Default)
            .is_ok()
    );
}

#[test]
fn a_snapshot_base_stands_where_nothing_is_given() {
    let base = ProviderSettings { model: Some("remembered".into()), ..Default::default() };
    let r = resolve(&ProviderFlags::default(), &no_env, None, base, Origin::Snapshot).unwrap();
    assert_eq!(r.settings.model.as_deref(), Some("remembered"));
    assert!(r.origins.iter().all(|o| *o == Origin::Snapshot));
}

#[test]
fn a_base_is_checked_like_any_source() {
    let base = ProviderSettings { temperature: f64::NAN, ..Default::default() };
    let e = resolve(&ProviderFlags::default(), &no_env, None, base, Origin::Snapshot).unwrap_err();
    assert!(e.contains("temperature (from the snapshot)"), "{e}");
    let base = ProviderSettings { provider: "future".into(), ..Default::default() };
    assert!(resolve(&ProviderFlags::default(), &no_env, None, base, Origin::Snapshot).is_err());
}

#[test]
fn bad_values_are_refused_in_words() {
    let bad = |key: Key, text: &str| ProviderSettings::default().set(key, text).unwrap_err();
    assert!(bad(Key::Provider, "gpt").contains("unknown provider `gpt`"));
    assert!(bad(Key::MaxTokens, "lots").contains("not a whole number"));
    assert!(bad(Key::MaxTokens, "0").contains("at least 1"));
    assert!(bad(Key::Temperature, "-1").contains("not a temperature"));
    assert!(bad(Key::Temperature, "NaN").contains("not a temperature"));
    for penalty in ["0", "-1.1", "NaN", "inf", "strong", ""] {
        let e = bad(Key::RepeatPenalty, penalty);
        assert!(e.contains(&format!("`{penalty}` is not a repeat penalty: give a number above 0")), "{e}");
    }
    assert!(bad(Key::ConnectTimeout, "10").contains("needs a unit"));
    assert!(bad(Key::IdleTimeout, "0s").contains("longer than 0"));
    assert!(bad(Key::RequestTimeout, "99999999999999999h").contains("too long"));
    assert!(bad(Key::BaseUrl, "ftp://x").contains("not an http"));
    assert!(bad(Key::BaseUrl, "http://user:pw@host").contains("credentials"));
    assert!(bad(Key::Template, "vicuna").contains("chatml"));
    // A key given where its variable's name belongs is not echoed.
    let e = bad(Key::ApiKeyEnv, "sk-secret-123");
    assert!(!e.contains("sk-secret"), "{e}");
    let mut s = ProviderSettings::default();
    s.set(Key::BaseUrl, "http://127.0.0.1:8080/v1/").unwrap();
    assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
    s.set(Key::MaxRetryWait, "0s").unwrap();
    assert_eq!(s.max_retry_wait_ms, 0);
    // A relative answers file is made absolute: a resumed run finds it from anywhere.
    s.set(Key::MockAnswers, "answers.json").unwrap();
    let expected = std::env::current_dir().unwrap().join("answers.json");
    assert_eq!(s.mock_answers.as_deref(), expected.to_str());
    assert!(bad(Key::MockAnswers, "").contains("must not be empty"));
}

#[test]
fn hostile_files_are_refused_in_words() {
    assert!(file("[provider]\nmodle = \"x\"").unwrap_err().contains("unknown setting `modle`"));
    let e = file("[provider]\napi_key = \"sk-secret\"").unwrap_err();
    assert!(e.contains("does not belong") && !e.contains("sk-secret"), "{e}");
    assert!(file("provider = 3").unwrap_err().contains("must be a table"));
    assert!(file("[provider]\nmodel = true").unwrap_err().contains("not a boolean"));
    assert!(file("[provider]\nmodel = [1]").unwrap_err().contains("not a array"));
    assert!(file("[provider\n").is_err());
    assert!(file("[other]\nx = 1\n").unwrap().values.is_empty());
    let f = file("[provider]\nmax_tokens = -3").unwrap();
    let e =
        resolve(&ProviderFlags::default(), &no_env, Some(&f), ProviderSettings::default(), Origin::Default)
            .unwrap_err();
    assert!(e.contains("tiss.toml` [provider] max_tokens") && e.contains("not a whole number"), "{e}");
}

#[test]
fn every_setting_round_trips_through_its_text() {
    let mut s = ProviderSettings::default();
    for (key, text) in [
        (Key::Provider, "mock"),
        (Key::Model, "m"),
        (Key::BaseUrl, "https://h/v1"),
        (Key::ApiKeyEnv, "MY_KEY"),
        (Key::MaxTokens, "12"),
        (Key::Temperature, "0.5"),
        (Key::Seed, "7"),
        (Key::RepeatPenalty, "1.15"),
        (Key::Template, "chatml"),
        (Key::MockAnswers, "/tmp/answers.json"),
        (Key::Record, "/tmp/run.cassette.json"),
        (Key::Cassette, "/tmp/old.cassette.json"),
        (Key::ConnectTimeout, "1500ms"),
        (Key::FirstTokenTimeout, "2m"),
        (Key::IdleTimeout, "1h"),
        (Key::RequestTimeout, "3s"),
        (Key::MaxRetries, "0"),
        (Key::MaxRetryWait, "5s"),
    ] {
        s.set(key, text).unwrap();
        assert_eq!(s.text(key).as_deref(), Some(text), "{key:?}");
    }
}
