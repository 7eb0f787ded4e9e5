//! The plan in a model's reply. Models often wrap code in a Markdown fence
//! however they are told; the plan is what the first fence holds (from the
//! line after ```` ``` ```` or ```` ```tiss ```` to the next fence line), or the whole
//! reply when it has none. Either way it ends with one line end.

pub fn plan_of(reply: &str) -> String {
    let lines: Vec<&str> = reply.lines().collect();
    let fence = |l: &&str| l.trim_start().starts_with("```");
    let body = match lines.iter().position(fence) {
        Some(open) => {
            let rest = &lines[open + 1..];
            let close = rest.iter().position(fence).unwrap_or(rest.len());
            rest[..close].join("\n")
        }
        None => reply.to_string(),
    };
    let trimmed = body.trim_matches(|c: char| c == '\n' || c == '\r');
    format!("{}\n", trimmed.trim_end())
}

#[cfg(test)]
mod tests {
    use super::plan_of;

    #[test]
    fn a_fence_is_stripped_and_a_bare_plan_kept() {
        assert_eq!(plan_of("TASK \"t\"\n"), "TASK \"t\"\n");
        assert_eq!(plan_of("\n\nTASK \"t\"   \n\n"), "TASK \"t\"\n");
        assert_eq!(
            plan_of("Here:\n```tiss\nTASK \"t\"\nSTEP \"a\" { }\n```\nDone."),
            "TASK \"t\"\nSTEP \"a\" { }\n"
        );
        assert_eq!(plan_of("```\nTASK \"t\""), "TASK \"t\"\n");
        // Indentation inside the plan is kept.
        assert_eq!(plan_of("```\n    LOG \"x\"\n```"), "    LOG \"x\"\n");
    }
}
