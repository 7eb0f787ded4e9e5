//! Plans of the shapes people write, each with its Lua twin from the same
//! loop (the same structure as Lua statements), for the compile comparison
//! against `luac5.4` (`benches/compile_vs_luac.sh`, issue 31): `steps`, the
//! CI shape (a RUN, its check and an IF per step); `heredoc` (WRITE of
//! 20-line heredocs); `conditions` (long AND/OR chains, MATCHES, nested
//! IF); `prompts` (PROMPT_AGENT WITH several variables, typed answers).

use std::fmt::Write;

/// The shapes, by name.
pub const SHAPES: &[&str] = &["steps", "heredoc", "conditions", "prompts"];

/// A plan of `shape` of at least `lines` lines, and its Lua twin; `None`
/// for a shape this does not know.
pub fn shape(name: &str, lines: usize) -> Option<(String, String)> {
    let (per_chunk, chunk): (usize, fn(usize, &mut String, &mut String)) = match name {
        "steps" => (9, steps),
        "heredoc" => (25, heredoc),
        "conditions" => (13, conditions),
        "prompts" => (7, prompts),
        _ => return None,
    };
    let mut tiss = String::from("TASK \"Generated plan\"\n\n");
    let mut lua = String::from("-- Generated twin\n\n");
    if name == "prompts" {
        tiss.push_str("SET_BUDGET API_CALLS = 100000\n\nTYPE Review = { verdict: \"approve\" | \"reject\", risk: INT, notes?: LIST OF STRING }\n\n");
        lua.push_str("local budget = 100000\n\nlocal Review = { verdict = {\"approve\", \"reject\"}, risk = 0, notes = {} }\n\n");
    }
    for i in 0..lines.div_ceil(per_chunk) {
        chunk(i, &mut tiss, &mut lua);
    }
    Some((tiss, lua))
}

fn steps(i: usize, tiss: &mut String, lua: &mut String) {
    let _ = write!(
        tiss,
        r#"STEP "step {i}" {{
    RUN "cc -O2 -o out{i} src{i}.c" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    IF LAST_RUN.STDOUT CONTAINS "warning {i}" {{
        WRITE "log{i}.txt" FROM "saw a warning"
    }} ELSE {{
        VAR ok{i} = "clean {i}"
    }}
}}
"#
    );
    let _ = write!(
        lua,
        r#"do -- step {i}
    local r = run("cc -O2 -o out{i} src{i}.c", 30)
    assert(r.exit_code == 0)
    if string.find(r.stdout, "warning {i}", 1, true) then
        write("log{i}.txt", "saw a warning")
    else
        local ok{i} = "clean {i}"
    end
end
"#
    );
}

fn heredoc(i: usize, tiss: &mut String, lua: &mut String) {
    let body: String =
        (0..20).map(|l| format!("line {l} of file {i}: some text to keep as written\n")).collect();
    let _ = write!(
        tiss,
        "STEP \"write {i}\" {{\n    WRITE \"notes/{i}.txt\" <<TEXT\n{body}TEXT\n    ASSERT FILE \"notes/{i}.txt\" EXISTS\n}}\n"
    );
    let _ = write!(
        lua,
        "do -- write {i}\n    write(\"notes/{i}.txt\", [[\n{body}]])\n    assert(exists(\"notes/{i}.txt\"))\nend\n"
    );
}

fn conditions(i: usize, tiss: &mut String, lua: &mut String) {
    let _ = write!(
        tiss,
        r#"STEP "check {i}" {{
    VAR a{i} = "value {i}"
    IF a{i} CONTAINS "x" AND a{i} STARTS_WITH "v" OR a{i} ENDS_WITH "{i}" AND NOT a{i} CONTAINS "zz" {{
        IF a{i} MATCHES "^v[a-z]+ [0-9]+$" {{
            LOG "matched {i}"
        }} ELSE {{
            LOG "no match {i}"
        }}
    }} ELSE IF a{i} == "other" OR a{i} != "value" AND a{i} STARTS_WITH "w" {{
        LOG "other {i}"
    }}
    ASSERT a{i} != "" AND (a{i} CONTAINS "value" OR a{i} CONTAINS "other") AND NOT a{i} ENDS_WITH "z"
}}
"#
    );
    let _ = write!(
        lua,
        r#"do -- check {i}
    local a = "value {i}"
    if string.find(a, "x", 1, true) and a:sub(1, 1) == "v" or a:sub(-{n}) == "{i}" and not string.find(a, "zz", 1, true) then
        if string.match(a, "^v[a-z]+ [0-9]+$") then
            log("matched {i}")
        else
            log("no match {i}")
        end
    elseif a == "other" or a ~= "value" and a:sub(1, 1) == "w" then
        log("other {i}")
    end
    assert(a ~= "" and (string.find(a, "value", 1, true) or string.find(a, "other", 1, true)) and not (a:sub(-1) == "z"))
end
"#,
        n = i.to_string().len()
    );
}

fn prompts(i: usize, tiss: &mut String, lua: &mut String) {
    let typed = if i.is_multiple_of(2) { " AS Review" } else { "" };
    let _ = write!(
        tiss,
        r#"STEP "ask {i}" {{
    VAR diff{i} = "change {i}"
    VAR ctx{i} = "context of {i}"
    PROMPT_AGENT "Review change {i} against its context" WITH diff{i}, ctx{i} INTO answer{i}{typed}
    LOG "asked about {i}"
    ASSERT diff{i} CONTAINS "{i}" OR ctx{i} STARTS_WITH "x"
}}
"#
    );
    let _ = write!(
        lua,
        r#"do -- ask {i}
    local diff = "change {i}"
    local ctx = "context of {i}"
    local answer = prompt_agent("Review change {i} against its context", {{diff, ctx}})
    log("asked about {i}")
    assert(string.find(diff, "{i}", 1, true) or ctx:sub(1, 1) == "x")
end
"#
    );
}
